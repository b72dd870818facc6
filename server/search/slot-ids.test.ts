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
});
