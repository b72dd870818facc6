import path from 'node:path';
import type { CardSideReader } from '../read-card-side.js';
import { warmUp, type WarmUpReport } from '../../warm-up.js';

/**
 * A fictional DNI (2012 model), both sides, rendered by test/dni/render-warm-up-cards.ts and
 * committed under models/.
 */
export const DNI_WARM_UP_CARDS = {
  front: path.join('warm-up', 'dni-2012-front.jpg'),
  back: path.join('warm-up', 'dni-2012-back.jpg'),
} as const;

/** One read of each side takes most of the first reads' extra cost. */
export const DOCUMENT_WARM_UP_RUNS = 1;

/** Both sides read with every step on; complete when the front's barcode and the back's MRZ were read. */
export function warmUpCards(
  reader: Pick<CardSideReader, 'read'>,
  modelsDir: string,
  runs = DOCUMENT_WARM_UP_RUNS,
): Promise<WarmUpReport> {
  return warmUp(
    [path.join(modelsDir, DNI_WARM_UP_CARDS.front), path.join(modelsDir, DNI_WARM_UP_CARDS.back)],
    async (image, i) => {
      const side = i === 0 ? 'front' : 'back';
      const reading = await reader.read(image, { pdf417: true, mrz: true, text: true, declaredSide: side });
      return side === 'front' ? reading.pdf417 !== null : reading.mrz !== null;
    },
    runs,
  );
}
