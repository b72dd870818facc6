// The search index's row coder, loaded: the rotation, the two quantisers and the packing of one
// row in SIMD WebAssembly (kernels/row-coder.wat, which says what each function does), compiled at
// build time as the scan kernels are (wasm-kernel.ts). Used by row-writer.ts.
import { wasm, wasmKernelModule, type WasmMemory, type WasmModule } from './wasm-kernel.js';

export interface RowCoder {
  prepareRow(row: number, dim: number, normalise: number): number;
  codeRow(
    unit: number,
    signs: number,
    y: number,
    scratch: number,
    out4: number,
    fs: number,
    pairs: number,
    shift: number,
    res: number,
    t2k: number,
    stepk: number,
  ): void;
}

/**
 * The coder for `dpad` (a power of two, at least 32) on `memory` (the index's own). A thread that
 * codes for the index is handed its compiled `module` (bulk-code-sink.ts): no file to read there.
 */
export function rowCoder(dpad: number, memory: WasmMemory, module: WasmModule = wasmKernelModule('row-coder')): RowCoder {
  if (dpad < 32 || (dpad & (dpad - 1)) !== 0) throw new Error(`codificador: ${dpad} no es potencia de dos >= 32`);
  return new wasm.Instance(module, { env: { memory, dpad } }).exports as RowCoder;
}
