/**
 * The person id of each slot of the index, `undefined` for a free slot. A snapshot stores its ids
 * as one text and where each ends in it (`packSlotIds`); a load keeps that text and cuts an id out
 * when it is first asked for. Making a million strings at once (JSON.parse of the id array) was a
 * quarter of a 1M snapshot's load; searches ask for ten.
 */
export class SlotIds {
  /** `null`: still only in the packed text. */
  private list: (string | undefined | null)[] = [];
  private packed: { text: string; ends: Int32Array } | null = null;

  get length(): number {
    return this.list.length;
  }

  get(slot: number): string | undefined {
    const id = this.list[slot];
    if (id !== null) return id;
    const { text, ends } = this.packed!;
    return (this.list[slot] = text.substring(slot > 0 ? ends[slot - 1]! : 0, ends[slot]!));
  }

  set(slot: number, id: string | undefined): void {
    this.list[slot] = id;
  }

  push(id: string): void {
    this.list.push(id);
  }

  clear(): void {
    this.list = [];
    this.packed = null;
  }

  /** Replaces every slot with a snapshot's ids (`packSlotIds`' bytes, slots 0 to count - 1). */
  unpack(bytes: Uint8Array, count: number): void {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (buffer.length < count * 4) throw new RangeError('ids: menos bytes que ids');
    // Copied as they lie: little-endian, as every platform the station runs on.
    const ends = new Int32Array(count);
    new Uint8Array(ends.buffer).set(bytes.subarray(0, count * 4));
    const text = buffer.toString('utf8', count * 4);
    for (let i = 0, from = 0; i < count; from = ends[i++]!) {
      if (ends[i]! < from || ends[i]! > text.length) throw new RangeError('ids: fin fuera de orden');
    }
    this.packed = { text, ends };
    this.list = new Array<null>(count).fill(null);
  }
}

/** Each id's end (in UTF-16 units of the joined text, int32 little-endian), then the joined text as UTF-8. */
export function packSlotIds(ids: readonly string[]): Buffer {
  const text = Buffer.from(ids.join(''), 'utf8');
  const out = Buffer.alloc(ids.length * 4 + text.length);
  let end = 0;
  ids.forEach((id, i) => out.writeInt32LE((end += id.length), i * 4));
  text.copy(out, ids.length * 4);
  return out;
}
