/**
 * The few FlatBuffers primitives a TFLite model needs: tables through their vtables, vectors,
 * strings and scalars, read in place from the file's bytes (little-endian, as the format says).
 */
export class FbTable {
  constructor(
    readonly view: DataView,
    readonly pos: number,
  ) {}

  static root(bytes: Uint8Array): FbTable {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return new FbTable(view, view.getUint32(0, true));
  }

  /** Byte position of field `index`, or 0 when the field is absent (its default applies). */
  private field(index: number): number {
    const vtable = this.pos - this.view.getInt32(this.pos, true);
    const vtableSize = this.view.getUint16(vtable, true);
    const slot = 4 + 2 * index;
    if (slot >= vtableSize) return 0;
    const offset = this.view.getUint16(vtable + slot, true);
    return offset ? this.pos + offset : 0;
  }

  private deref(at: number): number {
    return at + this.view.getUint32(at, true);
  }

  has(index: number): boolean {
    return this.field(index) !== 0;
  }

  uint8(index: number, fallback = 0): number {
    const at = this.field(index);
    return at ? this.view.getUint8(at) : fallback;
  }

  int8(index: number, fallback = 0): number {
    const at = this.field(index);
    return at ? this.view.getInt8(at) : fallback;
  }

  int32(index: number, fallback = 0): number {
    const at = this.field(index);
    return at ? this.view.getInt32(at, true) : fallback;
  }

  uint32(index: number, fallback = 0): number {
    const at = this.field(index);
    return at ? this.view.getUint32(at, true) : fallback;
  }

  float32(index: number, fallback = 0): number {
    const at = this.field(index);
    return at ? this.view.getFloat32(at, true) : fallback;
  }

  bool(index: number, fallback = false): boolean {
    const at = this.field(index);
    return at ? this.view.getUint8(at) !== 0 : fallback;
  }

  string(index: number): string | null {
    const at = this.field(index);
    if (!at) return null;
    const start = this.deref(at);
    const length = this.view.getUint32(start, true);
    return new TextDecoder().decode(new Uint8Array(this.view.buffer, this.view.byteOffset + start + 4, length));
  }

  table(index: number): FbTable | null {
    const at = this.field(index);
    return at ? new FbTable(this.view, this.deref(at)) : null;
  }

  private vector(index: number): { start: number; length: number } | null {
    const at = this.field(index);
    if (!at) return null;
    const start = this.deref(at);
    return { start: start + 4, length: this.view.getUint32(start, true) };
  }

  tables(index: number): FbTable[] {
    const v = this.vector(index);
    if (!v) return [];
    return Array.from({ length: v.length }, (_, i) => new FbTable(this.view, this.deref(v.start + 4 * i)));
  }

  int32s(index: number): number[] {
    const v = this.vector(index);
    if (!v) return [];
    return Array.from({ length: v.length }, (_, i) => this.view.getInt32(v.start + 4 * i, true));
  }

  float32s(index: number): number[] {
    const v = this.vector(index);
    if (!v) return [];
    return Array.from({ length: v.length }, (_, i) => this.view.getFloat32(v.start + 4 * i, true));
  }

  int64s(index: number): number[] {
    const v = this.vector(index);
    if (!v) return [];
    return Array.from({ length: v.length }, (_, i) => Number(this.view.getBigInt64(v.start + 8 * i, true)));
  }

  /** A byte vector as a view on the file (no copy). */
  bytes(index: number): Uint8Array | null {
    const v = this.vector(index);
    return v ? new Uint8Array(this.view.buffer, this.view.byteOffset + v.start, v.length) : null;
  }
}
