import type { MajorFace } from '../../engines/index.js';

/**
 * Eye distance under which a face is not located reliably enough to describe: the landmarks' error
 * of a pixel or two is then a fifth of the distance, and the recognition crop is a blur of ~25 px.
 */
export const MIN_LOCATABLE_IOD = 10;

/**
 * Why the major face cannot stand for a person, or null: cut by the frame's edge (an eye or the
 * nose tip outside the picture, where the padded detection pass only guessed them), or too small
 * to be located. A tight crop keeps both eyes and the nose inside the frame and passes.
 */
export function whyFaceUnusable(face: MajorFace, frame: { width: number; height: number }): string | null {
  const outside = ([x, y]: readonly [number, number]) => x < 0 || y < 0 || x >= frame.width || y >= frame.height;
  if (outside(face.leftEye) || outside(face.rightEye) || outside(face.noseTip))
    return 'el rostro está cortado por el borde de la imagen (un ojo o la nariz quedan fuera): encuadre la cara entera';
  if (face.iod < MIN_LOCATABLE_IOD)
    return `el rostro es demasiado pequeño para ubicarlo (${Math.round(face.iod)} px entre ojos, mínimo ${MIN_LOCATABLE_IOD}): acerque a la persona a la cámara`;
  return null;
}
