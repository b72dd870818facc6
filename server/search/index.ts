// The 1:N search index (docs/search-index.md): what the rest of the server, the desktop shell and
// the benchmarks use of this folder. The modules behind it are named in quantized-index.ts.
export type { SearchIndex } from './search-index.js';
export { EmbeddingIndex, type SearchHit } from './embedding-index.js';
export {
  type BulkLoader,
  IndexIntegrityError,
  QuantizedEmbeddingIndex,
  type QuantizedIndexOptions,
  type SearchTrace,
} from './quantized-index.js';
export { indexFacade } from './index-facade.js';
export { kernelLogFields, nativeKernels } from './native-kernels.js';
export { searchIndexKey } from './row-cipher.js';
export { RESIDENT_FLOATS_MIB } from './vector-store.js';
export { adviseHugePages, anonHugePagesBytes, transparentHugePages } from './huge-pages.js';
export {
  instantiateKernel,
  type Kernel,
  kernelModule,
  relaxedSimd,
  wasm,
  wasmKernelModule,
  WASM_PAGE,
  type WasmMemory,
} from './wasm-kernel.js';
