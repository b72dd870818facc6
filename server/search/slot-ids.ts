/**
 * The person id of each slot of the index (`undefined` for a free slot), and the slot of each id.
 * A snapshot stores its ids as one text and where each ends in it (`packSlotIds`). A load keeps
 * that text, and a hash table of its ids' slots is built from the text itself, a step at a time
 * on the event loop after the load (`find` finishes it first): an id becomes a string only when
 * it is asked for (a search asks for ten), and no map of a million strings is made. Making them
 * (JSON.parse of the id array, then a Map of them) was a quarter of a 1M snapshot's load, and
 * more than a second of a crash's catch-up. Ids set after the load are kept in a Map.
 */
export class SlotIds {
  /** `null`: still only in the packed text. */
  private list: (string | undefined | null)[] = [];
  private packed: { text: string; ends: Int32Array; table: Int32Array; hashed: number } | null = null;
  /** The slots of ids set since the load (or of every id, without a load). */
  private readonly later = new Map<string, number>();
  /** Resolves once the load's ids are all in the hash table. */
  private hashed: Promise<void> = Promise.resolve();

  get length(): number {
    return this.list.length;
  }

  get(slot: number): string | undefined {
    const id = this.list[slot];
    if (id !== null) return id;
    const { text, ends } = this.packed!;
    return (this.list[slot] = text.substring(slot > 0 ? ends[slot - 1]! : 0, ends[slot]!));
  }

  /** The slot that holds `id`, if any. */
  find(id: string): number | undefined {
    const slot = this.later.get(id);
    if (slot !== undefined || !this.packed) return slot;
    this.hashUntil(this.packed.ends.length);
    const { text, ends, table } = this.packed;
    const mask = table.length - 1;
    for (let at = hashOf(id, 0, id.length) & mask; table[at] !== 0; at = (at + 1) & mask) {
      const s = table[at]! - 1;
      const from = s > 0 ? ends[s - 1]! : 0;
      if (ends[s]! - from !== id.length || !text.startsWith(id, from)) continue;
      // Still this id's unless the slot was freed or given to another id since.
      const now = this.list[s];
      return now === null || now === id ? s : undefined;
    }
    return undefined;
  }

  set(slot: number, id: string | undefined): void {
    const old = this.get(slot);
    if (old !== undefined && this.later.get(old) === slot) this.later.delete(old);
    // A packed id no longer found at its slot: `find` checks the slot's id.
    this.list[slot] = id;
    if (id !== undefined) this.later.set(id, slot);
  }

  push(id: string): void {
    this.later.set(id, this.list.length);
    this.list.push(id);
  }

  /** Every id held, in slot order. */
  *ids(): Generator<string> {
    for (let slot = 0; slot < this.list.length; slot++) {
      const id = this.get(slot);
      if (id !== undefined) yield id;
    }
  }

  clear(): void {
    this.list = [];
    this.packed = null;
    this.later.clear();
  }

  /** Replaces every slot with a snapshot's ids (`packSlotIds`' bytes, slots 0 to count - 1). */
  unpack(bytes: Uint8Array, count: number): void {
    if (bytes.length < count * 4) throw new RangeError('ids: menos bytes que ids');
    // Copied as they lie: little-endian, as every platform the station runs on.
    const ends = new Int32Array(count);
    new Uint8Array(ends.buffer).set(bytes.subarray(0, count * 4));
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8', count * 4);
    for (let i = 0, from = 0; i < count; from = ends[i++]!) {
      if (ends[i]! < from || ends[i]! > text.length) throw new RangeError('ids: fin fuera de orden');
    }
    this.clear();
    // At most three quarters full, so a probe ends within a few slots.
    const table = new Int32Array(2 ** Math.ceil(Math.log2(Math.max(2, (count * 4) / 3))));
    const packed = { text, ends, table, hashed: 0 };
    this.packed = packed;
    this.list = new Array<null>(count).fill(null);
    let done: () => void;
    this.hashed = new Promise((resolve) => (done = resolve));
    const step = () => {
      if (this.packed !== packed || packed.hashed >= count) return done();
      this.hashUntil(Math.min(count, packed.hashed + HASH_STEP));
      setImmediate(step).unref();
    };
    setImmediate(step).unref();
  }

  /** Resolves once a load's ids are all hashed (by the background steps, or by a `find`). */
  settled(): Promise<void> {
    return this.hashed;
  }

  /** Adds the packed ids up to slot `until` to the table. */
  private hashUntil(until: number): void {
    const packed = this.packed!;
    const { text, ends, table } = packed;
    const mask = table.length - 1;
    for (let i = packed.hashed; i < until; i++) {
      let at = hashOf(text, i > 0 ? ends[i - 1]! : 0, ends[i]!) & mask;
      while (table[at] !== 0) at = (at + 1) & mask;
      table[at] = i + 1;
    }
    packed.hashed = Math.max(packed.hashed, until);
  }
}

/** Packed ids a step of the background hashing adds to the table (a few milliseconds). */
const HASH_STEP = 32768;

/** FNV-1a over the UTF-16 units of `s` from `from` to `to`. */
function hashOf(s: string, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
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
