/** Boxes on the rectified 2012+ DNI, in millimetres from the card's top-left corner (ID-1, 85.6 x 54 mm). */
export interface FieldBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The fingerprint box of the 2012+ back (returned as `documentInfo.fingerPrint`). */
export const DNI_2012_BACK_FINGERPRINT: FieldBox = { x: 64, y: 14, width: 16, height: 16 };
