// npx vite-node test/dni/render-warm-up-cards.ts — renders the fictional DNI (2012 model, both
// sides) that each document worker reads before it takes requests, into models/warm-up/.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { DNI_WARM_UP_CARDS } from '../../server/engines/document/worker/warm-up-cards.js';
import { defaultModelsDir } from '../../server/engines/face/face-engine.js';
import { PEOPLE } from './dni-person.js';
import { renderBack2012, renderFront2012 } from './synthetic-card.js';

const dir = path.join(defaultModelsDir(), path.dirname(DNI_WARM_UP_CARDS.front));
mkdirSync(dir, { recursive: true });
for (const [side, render] of [
  ['front', renderFront2012],
  ['back', renderBack2012],
] as const) {
  const card = await render(PEOPLE.ordinary!);
  const jpeg = await sharp(card.image).jpeg({ quality: 85 }).toBuffer();
  writeFileSync(path.join(defaultModelsDir(), DNI_WARM_UP_CARDS[side]), jpeg);
  console.log(`${DNI_WARM_UP_CARDS[side]}: ${jpeg.length} bytes`);
}
