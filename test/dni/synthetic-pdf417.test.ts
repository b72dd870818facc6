import { describe, expect, it } from 'vitest';
import { decodePdf417 } from '../../server/engines/document/pdf417/decode-pdf417.js';
import { parseDniPayload } from '../../server/engines/document/pdf417/dni-payload.js';
import { type DniPerson, PEOPLE, payloadFieldsOf } from './dni-person.js';
import { DEGRADATIONS, degrade, type RenderedCard, renderBack2009, renderFront2012 } from './synthetic-card.js';

const TODAY = new Date(2025, 5, 1);

const expected = (p: DniPerson, side: string) => payloadFieldsOf(p, side === 'front-2012' ? 'front-2012' : 'back-2009');

// Many decodes: minutes on a loaded 2-core machine, seconds on a quiet one.
describe('synthetic cards: render -> PDF417 decode -> parse == ground truth', { timeout: 240_000 }, () => {
  it('reads every field of both layouts, clean and degraded', async () => {
    const cards: RenderedCard[] = [];
    for (const person of Object.values(PEOPLE)) {
      cards.push(await renderFront2012(person), await renderBack2009(person));
    }
    const table: Record<string, { ok: number; n: number; ms: number[]; steps: Set<string> }> = {};
    const failures: string[] = [];
    for (const [name, d] of Object.entries(DEGRADATIONS)) {
      const row = (table[name] = { ok: 0, n: 0, ms: [] as number[], steps: new Set<string>() });
      for (const card of cards) {
        const img = await degrade(card, d);
        const r = await decodePdf417(img.image, { timeBudgetMs: 3000 });
        row.n++;
        if (!r) {
          failures.push(`${name} ${card.truth.side} ${card.truth.person.surname}: not decoded`);
          continue;
        }
        row.ms.push(r.ms);
        row.steps.add(`${r.decoder}@${r.step}`);
        expect(Buffer.from(r.bytes).equals(card.truth.payloadBytes ?? Buffer.alloc(0))).toBe(true);
        const p = parseDniPayload(r.bytes, { referenceDate: TODAY });
        expect(p.layout).toBe(card.truth.side);
        if (p.layout === null) continue;
        expect(p.problems).toEqual([]);
        const values = Object.fromEntries(Object.entries(p.fields).map(([k, f]) => [k, f.value]));
        const { cuil, ...rest } = values;
        expect(rest).toEqual(expected(card.truth.person, card.truth.side));
        if (card.truth.side === 'front-2012' && card.truth.person.cuilPrefix) expect(cuil).toMatch(/^\d{2}-\d{8}-\d$/);
        row.ok++;
      }
    }
    console.log(
      'synthetic PDF417 (4 people x front-2012 + back-2009, 300 dpi):\n' +
        Object.entries(table)
          .map(([k, v]) => {
            v.ms.sort((a, b) => a - b);
            return `  ${k.padEnd(8)} ${v.ok}/${v.n}  p50 ${v.ms[Math.floor(v.ms.length / 2)] ?? '-'} ms  max ${v.ms[v.ms.length - 1] ?? '-'} ms  via ${[...v.steps].join(', ')}`;
          })
          .join('\n') +
        (failures.length ? `\n  failures: ${failures.join('; ')}` : ''),
    );
    expect(failures).toEqual([]);
  });
});
