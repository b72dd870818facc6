import { describe, expect, it } from 'vitest';
import { packSlotIds, SlotIds } from './slot-ids.js';

describe('SlotIds', () => {
  const ids = ['20123456', 'Núñez-7', '😀 dos', '', 'x'.repeat(300)];

  it('gives back packed ids, non-ASCII and surrogate pairs included, and takes changes over them', () => {
    const slots = new SlotIds();
    slots.unpack(packSlotIds(ids), ids.length);
    expect(slots.length).toBe(ids.length);
    expect([4, 0, 2, 1, 3].map((i) => slots.get(i))).toEqual([4, 0, 2, 1, 3].map((i) => ids[i]));
    slots.set(1, undefined);
    slots.push('nuevo');
    expect([slots.get(1), slots.get(5), slots.length]).toEqual([undefined, 'nuevo', 6]);
    slots.clear();
    expect(slots.length).toBe(0);
  });

  it("finds each packed id's slot without making it a string, and follows ids freed, moved and given to reused slots", () => {
    const many = Array.from({ length: 5000 }, (_, i) => (i % 3 ? `${20_000_000 + i}` : `persona-${i}-ñ😀`));
    const slots = new SlotIds();
    slots.unpack(packSlotIds(many), many.length);
    for (const i of [0, 1, 2, 2500, 4999]) expect(slots.find(many[i]!)).toBe(i);
    expect([slots.find('20000001x'), slots.find('2000000'), slots.find('')]).toEqual([undefined, undefined, undefined]);
    slots.set(1, undefined); // freed
    slots.set(2, 'otro'); // reused by another id
    slots.push(many[1]!); // re-enrolled into a new slot
    expect([slots.find(many[1]!), slots.find(many[2]!), slots.find('otro')]).toEqual([5000, undefined, 2]);
    slots.set(2, many[2]!); // back
    expect([slots.find(many[2]!), slots.find('otro')]).toEqual([2, undefined]);
    expect(slots.get(3)).toBe(many[3]);
    expect(slots.find(many[3]!)).toBe(3); // made a string, still found
    expect([...slots.ids()]).toHaveLength(5000);
    expect(new Set(slots.ids())).toEqual(new Set([...many.filter((_, i) => i !== 1), many[1]!]));
  });

  it('refuses ends out of order or past the text', () => {
    const packed = packSlotIds(ids);
    const backwards = Buffer.from(packed);
    backwards.writeInt32LE(1, 4); // the second id would end before the first
    expect(() => new SlotIds().unpack(backwards, ids.length)).toThrow(RangeError);
    const past = Buffer.from(packed);
    past.writeInt32LE(10_000, (ids.length - 1) * 4);
    expect(() => new SlotIds().unpack(past, ids.length)).toThrow(RangeError);
    expect(() => new SlotIds().unpack(packed.subarray(0, 8), ids.length)).toThrow(RangeError);
  });

  it('says when a load has been hashed, by its background steps or by a find that finished them', async () => {
    const ids = Array.from({ length: 100_000 }, (_, i) => `id-${i}`);
    const background = new SlotIds();
    background.unpack(packSlotIds(ids), ids.length);
    let settled = false;
    const waiting = background.settled().then(() => (settled = true));
    expect(settled).toBe(false);
    await waiting;
    expect(background.find('id-99999')).toBe(99_999);
    const found = new SlotIds();
    found.unpack(packSlotIds(ids), ids.length);
    expect(found.find('id-5')).toBe(5);
    await found.settled();
    expect(await new SlotIds().settled()).toBeUndefined();
  });
});
