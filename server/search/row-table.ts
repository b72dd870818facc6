// The search index's rows and persons, beside the codes in its memory: each row's person slot,
// hash and 4-bit error bound; each person's chain of rows; the ids (slot-ids.ts); the sum of the
// live rows' unit vectors (SearchIndex.sampleSum) and the error maxima the search's bounds use.
import { SlotIds } from './slot-ids.js';

function grown<T extends Int32Array | Float32Array>(a: T, n: number, make: (n: number) => T): T {
  const b = make(n);
  b.set(a);
  return b;
}

export class RowTable {
  /** Rows held, tombstones included. */
  rowCount = 0;
  deadRows = 0;
  /** Live samples. */
  samples = 0;
  /** Each row's person slot (-1: removed). */
  rowSlot = new Int32Array(0);
  /** The next row of the same person (-1: the last). */
  rowNext = new Int32Array(0);
  /** Each row's float-row hash (rowHash), checked at every read. */
  rowHashes = new Int32Array(0);
  /** Each row's 4-bit residual norm: its own error bound in the second pass. */
  rowErr4 = new Float32Array(0);
  slotHead = new Int32Array(0);
  slotLast = new Int32Array(0);
  slotSamples = new Int32Array(0);
  slotIds = new SlotIds();
  freeSlots: number[] = [];
  /** The sum of every live row's unit vector. */
  sum: Float64Array;
  /** The largest 4-bit quantisation residual norm of any row, and the largest 2-bit scale. */
  err4Max = 0;
  alpha2Max = 0;

  constructor(readonly dim: number) {
    this.sum = new Float64Array(dim);
  }

  get personCount(): number {
    return this.slotIds.length - this.freeSlots.length;
  }

  /** The row arrays for `capacity` rows. */
  grow(capacity: number): void {
    this.rowSlot = grown(this.rowSlot, capacity, (n) => new Int32Array(n));
    this.rowNext = grown(this.rowNext, capacity, (n) => new Int32Array(n));
    this.rowHashes = grown(this.rowHashes, capacity, (n) => new Int32Array(n));
    this.rowErr4 = grown(this.rowErr4, capacity, (n) => new Float32Array(n));
  }

  /** A slot for a new person. */
  newSlot(idPersona: string): number {
    let slot = this.freeSlots.pop();
    if (slot === undefined) {
      slot = this.slotIds.length;
      this.slotIds.push(idPersona);
      if (slot >= this.slotHead.length) {
        const n = Math.max(1024, this.slotHead.length * 2);
        for (const key of ['slotHead', 'slotLast', 'slotSamples'] as const)
          this[key] = grown(this[key], n, (m) => new Int32Array(m));
      }
    } else {
      this.slotIds.set(slot, idPersona);
    }
    this.slotHead[slot] = -1;
    this.slotLast[slot] = -1;
    this.slotSamples[slot] = 0;
    return slot;
  }

  /** `row` filed as the last of the person in `slot`. */
  link(row: number, slot: number): void {
    this.rowSlot[row] = slot;
    this.rowNext[row] = -1;
    const last = this.slotLast[slot]!;
    if (last < 0) this.slotHead[slot] = row;
    else this.rowNext[last] = row;
    this.slotLast[slot] = row;
    this.slotSamples[slot]!++;
    this.samples++;
  }

  /** Each row's error bounds, kept with the maxima. */
  noteErrors(row: number, err4: number, alpha2: number): void {
    this.rowErr4[row] = err4;
    this.err4Max = Math.max(this.err4Max, err4);
    this.alpha2Max = Math.max(this.alpha2Max, alpha2);
  }

  /** The person's slot freed, its rows (already tombstoned) counted dead. */
  freeSlot(slot: number): void {
    for (let row = this.slotHead[slot]!; row >= 0; row = this.rowNext[row]!) {
      this.rowSlot[row] = -1;
      this.deadRows++;
    }
    this.samples -= this.slotSamples[slot]!;
    this.slotIds.set(slot, undefined);
    this.freeSlots.push(slot);
  }

  /** Empties the table of persons (a snapshot's load refills it); the row arrays stay. */
  clearPersons(): void {
    this.rowCount = 0;
    this.deadRows = 0;
    this.samples = 0;
    this.sum = new Float64Array(this.dim);
    this.freeSlots = [];
    this.slotIds.clear();
    this.slotHead = new Int32Array(0);
    this.slotLast = new Int32Array(0);
    this.slotSamples = new Int32Array(0);
  }

  /** Slot arrays for `slots` persons, the samples counted from rowSlot (a load), then the chains. */
  slotsFromRows(slots: number): void {
    this.slotHead = new Int32Array(slots).fill(-1);
    this.slotLast = new Int32Array(slots).fill(-1);
    this.slotSamples = new Int32Array(slots);
    for (let r = 0; r < this.rowCount; r++) this.slotSamples[this.rowSlot[r]!]!++;
    this.relink();
  }

  /** Rebuilds the per-person row chains from rowSlot. */
  relink(): void {
    this.slotHead.fill(-1);
    this.slotLast.fill(-1);
    for (let r = 0; r < this.rowCount; r++) {
      const slot = this.rowSlot[r]!;
      this.rowNext[r] = -1;
      if (slot < 0) continue;
      const last = this.slotLast[slot]!;
      if (last < 0) this.slotHead[slot] = r;
      else this.rowNext[last] = r;
      this.slotLast[slot] = r;
    }
  }
}
