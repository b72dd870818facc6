/** What the last search did (for the benchmark and the tests). */
export interface SearchTrace {
  passes: number;
  firstPassRows: number;
  refinedRows: number;
  rerankedRows: number;
  /** Wall-clock time of the first pass's scans, both threads. */
  firstPassMs: number;
  /**
   * Of the first pass on two threads: the caller's scan of its half, and how long it then waited
   * for the worker's (a late wake-up or a slower half shows here).
   */
  firstPassOwnMs: number;
  firstPassWaitMs: number;
  /** The worker's scan of its half. */
  firstPassWorkerMs: number;
  /** Wall-clock time of the 4-bit scoring of the first pass's rows, and of the exact re-ranking. */
  refineMs: number;
  rerankMs: number;
  /** True when the shortlists reached their limits before the bound was met. */
  unsure: boolean;
}

export const emptyTrace = (): SearchTrace => ({
  passes: 0,
  firstPassRows: 0,
  refinedRows: 0,
  rerankedRows: 0,
  firstPassMs: 0,
  firstPassOwnMs: 0,
  firstPassWaitMs: 0,
  firstPassWorkerMs: 0,
  refineMs: 0,
  rerankMs: 0,
  unsure: false,
});
