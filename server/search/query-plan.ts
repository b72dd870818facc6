// A search's plan: the first pass over every row's codes, the 4-bit scoring of the rows its bound
// asks for, the exact re-ranking of the persons that may be in the top k, each list as long as the
// quantisation error bound needs so that nothing of the true top-k is left out
// (docs/search-index.md, "Search" and "Why the answers are exact").
import { normalize } from '../matching/index.js';
import type { SearchHit } from './embedding-index.js';
import { type FirstPass, firstPassRows } from './first-pass.js';
import { type IndexParts, rowMismatch, viewOf } from './index-parts.js';
import { MAX_KEEP, THREADS_MAX } from './index-memory.js';
import type { ProbeCoder } from './probe-coder.js';
import { hashAndDotRows } from './row-scores.js';
import { emptyTrace, type SearchTrace } from './search-trace.js';
import { FirstPassSizer, kthLargest, topIndices } from './shortlist.js';

/** The first pass's rows of highest bound scored at 4 bits before any other (settle()). */
const TIER_A = 256;
/** Lists shorter than this are scored by the caller's thread alone (a worker round trip costs ~0.1 ms). */
const PARALLEL_LIST = 2048;

export interface QueryPlanOptions {
  /** Below this many rows the caller's thread scans alone. */
  parallelFrom: number;
  /** Rows of best 4-bit bound re-ranked exactly at first: max(shortlist, shortlistPerHit x k). */
  shortlist: number;
  shortlistPerHit: number;
  /** Rows kept per thread by the first search's first pass, when the caller fixed it. */
  firstPass: number | undefined;
  /** Standard deviations of quantisation error a row must be below the k-th exact score to be left out. */
  margin: number;
}

/** One search's exact scores so far (best sample per person slot) and what it asked for. */
interface Shortlist {
  q: Float32Array;
  s16: number;
  excludeSlot: number;
  wanted: number;
  trace: SearchTrace;
  scored: Map<number, number>;
}

export class QueryPlanner {
  /** What the last search did. */
  lastSearch: SearchTrace = emptyTrace();
  private adaptiveFirstPass: number;
  private readonly firstPassSizer: FirstPassSizer;
  /** The fast scan's per-row bound factor for the current probe (margin x table units). */
  private eScale = 0;
  /** The re-ranked rows' floats, hashes and scores, grown as shortlists need. */
  private rerankRows = new Float32Array(0);
  private rerankHashes = new Int32Array(0);
  private rerankDots = new Float64Array(0);

  constructor(
    private readonly parts: IndexParts,
    private readonly probe: ProbeCoder,
    private readonly options: QueryPlanOptions,
  ) {
    // The list the first search starts from; later ones are sized on what recent ones needed (FirstPassSizer).
    this.adaptiveFirstPass = Math.min(MAX_KEEP, options.firstPass ?? (parts.firstMode === 2 ? 2048 : 512));
    // Unless fixed by the caller, the list may shrink to what the bound needs (small galleries need few rows).
    this.firstPassSizer = new FirstPassSizer(options.firstPass ?? 128, MAX_KEEP);
  }

  /** The `k` best persons for a probe, best first, optionally leaving one person out. */
  search(probe: Float32Array, k: number, exclude?: string): SearchHit[] {
    const { parts, options } = this;
    const table = parts.rows;
    const persons = table.personCount;
    const viewed = viewOf(parts, probe);
    if (k <= 0 || persons === 0 || !viewed) return [];
    const q = normalize(viewed);
    const excludeSlot = exclude === undefined ? -1 : (table.slotIds.find(exclude) ?? -1);
    const wanted = Math.min(k, persons - (excludeSlot >= 0 ? 1 : 0));
    if (wanted <= 0) return [];
    // The worker wakes while the probe is prepared here.
    if (parts.worker && table.rowCount >= options.parallelFrom) parts.worker.wake();
    const { s16, sLut } = this.probe.code(q);
    // Error (one standard deviation) of each estimate: residual norm / sqrt(dpad). The fast scan
    // adds each row's own (times `margin`, in the kernel: its scores are upper bounds), and here
    // the rounding of its table (half a unit per group); the 4-bit pass, the largest of any row.
    const fast = parts.firstMode !== 1;
    const e1 = fast ? Math.sqrt((table.alpha2Max ** 2 * parts.pairs) / 12) / (sLut || 1) : table.err4Max / Math.sqrt(parts.dpad);
    const unit1 = fast ? sLut : s16;
    this.eScale = fast ? options.margin * sLut : 0;
    // A row of the first pass is worth scoring further only if its bound reaches this (pass units).
    const floorFor = (sk: number) => (sk - options.margin * e1) * unit1;
    let keep1 = this.adaptiveFirstPass;
    const trace = emptyTrace();
    this.lastSearch = trace;
    const timedFirstPass = (keep: number, floor = -Infinity) => {
      const t0 = performance.now();
      const result = firstPassRows(parts, keep, floor, this.eScale, options.parallelFrom, trace);
      trace.firstPassMs += performance.now() - t0;
      trace.passes++;
      return result;
    };
    const extra = excludeSlot >= 0 ? table.slotSamples[excludeSlot]! : 0;
    const list: Shortlist = { q, s16, excludeSlot, wanted, trace, scored: new Map() };
    const round1 = Math.max(options.shortlist, options.shortlistPerHit * k) + extra;
    let first = timedFirstPass(keep1);
    for (;;) {
      const sk = this.settle(list, first, floorFor, round1, extra);
      trace.firstPassRows = first.rows.length;
      // A row the first pass left out scored at most its cutoff; it can beat the k-th exact score
      // only if its error exceeds `margin` standard deviations.
      const floor1 = floorFor(sk);
      if (!(first.cutoff > floor1)) {
        // The next search starts from a list sized on what the recent ones needed.
        let needed = 0;
        for (let i = 0; i < first.scores.length; i++) if (first.scores[i]! >= floor1) needed++;
        this.adaptiveFirstPass = this.firstPassSizer.record(needed / (parts.worker ? 2 : 1));
        return this.best(list, k);
      }
      if (keep1 < MAX_KEEP && first.full) {
        // Scan again for every row at or above the floor: the k-th exact score can only rise
        // as candidates are added, so one more scan suffices unless the list overflows.
        keep1 = MAX_KEEP;
        first = timedFirstPass(keep1, sk === -Infinity ? -Infinity : floor1);
      } else {
        trace.unsure = true;
        return this.best(list, k);
      }
    }
  }

  /**
   * Scores the first pass's rows further, only as far as the bound asks, and re-ranks exactly
   * every person who may be in the top `wanted`; returns the `wanted`-th exact score so far
   * (-Infinity while fewer persons were scored). In three steps:
   * 1. the rows of highest first-pass bound (TIER_A, or 16 per person wanted) are scored at 4 bits
   *    and the best of those bounds re-ranked exactly (at least `round1` rows, more until `wanted`
   *    persons are scored): their `wanted`-th score is a lower bound of the final one;
   * 2. of the other rows, only those whose first-pass bound reaches that lower bound's floor are
   *    scored at 4 bits (at 1M x 512 about a quarter of the list: the rest could not beat it);
   * 3. every row scored whose 4-bit bound exceeds the `wanted`-th exact score is re-ranked.
   * Every row not re-ranked then has a bound below the final score; the caller checks the rows
   * the first pass left out.
   */
  private settle(list: Shortlist, first: FirstPass, floorFor: (sk: number) => number, round1: number, extra: number): number {
    const { rows, scores } = first;
    const rowSlot = this.parts.rows.rowSlot;
    const n = rows.length;
    const inA = topIndices(scores, Math.min(n, Math.max(TIER_A, 16 * list.wanted) + extra));
    const rowsA = Int32Array.from(inA, (i) => rows[i]!);
    const boundsA = this.bounds4(rowsA, list);
    for (let r = Math.max(1, Math.min(round1, rowsA.length)); ; r = Math.min(2 * r, rowsA.length)) {
      const picked = topIndices(boundsA, r);
      this.rerankInto(
        list,
        Int32Array.from(picked, (i) => rowsA[i]!),
      );
      if (list.scored.size >= list.wanted || r >= rowsA.length) break;
    }
    // The `wanted`-th exact score so far: a lower bound of the final one.
    const sk = kthLargest(list.scored.values(), list.wanted);
    const floorB = sk === -Infinity ? -Infinity : floorFor(sk);
    const marked = new Uint8Array(n);
    for (const i of inA) marked[i] = 1;
    let countB = 0;
    for (let i = 0; i < n; i++) if (!marked[i] && scores[i]! >= floorB) countB++;
    const rowsB = new Int32Array(countB);
    for (let i = 0, w = 0; i < n; i++) if (!marked[i] && scores[i]! >= floorB) rowsB[w++] = rows[i]!;
    const boundsB = this.bounds4(rowsB, list);
    const beyond: number[] = [];
    const collect = (r: Int32Array, b: Float32Array) => {
      for (let i = 0; i < r.length; i++) if (b[i]! > sk && !list.scored.has(rowSlot[r[i]!]!)) beyond.push(r[i]!);
    };
    collect(rowsA, boundsA);
    collect(rowsB, boundsB);
    this.rerankInto(list, beyond);
    return kthLargest(list.scored.values(), list.wanted);
  }

  /**
   * The 4-bit score of each row, raised by `margin` times its own error (residual norm /
   * sqrt(dpad)): an upper bound of its exact score but with a negligible chance (score units).
   */
  private bounds4(candidates: Int32Array, list: Shortlist): Float32Array {
    const n = candidates.length;
    const bound = new Float32Array(n);
    if (n === 0) return bound;
    const t0 = performance.now();
    const { parts } = this;
    const m = parts.memory;
    const kernel = parts.scanKernel;
    const buffer = m.memory.buffer;
    // The first pass's results are consumed: its area holds the list and the scores.
    const listAt = m.resAt;
    const scoresAt = m.resAt + THREADS_MAX * MAX_KEEP * 4;
    new Int32Array(buffer, listAt, n).set(candidates);
    const worker = parts.worker;
    if (worker && n >= PARALLEL_LIST) {
      // Random reads of 4-bit rows: the worker scores the second half of the list meanwhile.
      const half = n >> 1;
      const gen = worker.scoreList({
        q: m.probeAt,
        codes: m.codesAt,
        scales: m.scales4At,
        list: listAt + half * 4,
        count: n - half,
        out: scoresAt + half * 4,
      });
      kernel.scoreI4List(m.probeAt, m.codesAt, m.scales4At, listAt, half, scoresAt);
      if (!worker.finished(gen))
        kernel.scoreI4List(m.probeAt, m.codesAt, m.scales4At, listAt + half * 4, n - half, scoresAt + half * 4);
    } else {
      kernel.scoreI4List(m.probeAt, m.codesAt, m.scales4At, listAt, n, scoresAt);
    }
    const scores = new Float32Array(buffer, scoresAt, n);
    const err4 = parts.rows.rowErr4;
    const e = this.options.margin / Math.sqrt(parts.dpad);
    for (let i = 0; i < n; i++) bound[i] = scores[i]! / list.s16 + e * err4[candidates[i]!]!;
    list.trace.refinedRows += n;
    list.trace.refineMs += performance.now() - t0;
    return bound;
  }

  /** Exact cosine over every sample of each person of `candidates` not scored yet (best sample per person). */
  private rerankInto(list: Shortlist, candidates: ArrayLike<number>): void {
    const t0 = performance.now();
    const { dim } = this.parts;
    const { rowSlot, slotHead, rowNext, rowHashes } = this.parts.rows;
    const slots: number[] = [];
    const rows: number[] = [];
    for (let c = 0; c < candidates.length; c++) {
      const slot = rowSlot[candidates[c]!]!;
      if (slot < 0 || slot === list.excludeSlot || list.scored.has(slot)) continue;
      // Held until scored below, so that a person listed twice is read once.
      list.scored.set(slot, -1);
      slots.push(slot);
      for (let r = slotHead[slot]!; r >= 0; r = rowNext[r]!) rows.push(r);
    }
    if (!rows.length) return;
    // Every sample of these persons read (and, sealed, decrypted) at once, then checked and scored.
    const n = rows.length;
    if (this.rerankRows.length < n * dim) {
      this.rerankRows = new Float32Array(2 * n * dim);
      this.rerankHashes = new Int32Array(2 * n);
      this.rerankDots = new Float64Array(2 * n);
    }
    this.parts.vectors.readRows(rows, this.rerankRows);
    hashAndDotRows(list.q, this.rerankRows, dim, n, this.rerankHashes, this.rerankDots);
    let i = 0;
    for (const slot of slots) {
      let best = -1;
      for (let r = slotHead[slot]!; r >= 0; r = rowNext[r]!, i++) {
        if (this.rerankHashes[i] !== rowHashes[r]) throw rowMismatch(r);
        best = Math.max(best, this.rerankDots[i]!);
      }
      list.scored.set(slot, best);
    }
    list.trace.rerankedRows += rows.length;
    list.trace.rerankMs += performance.now() - t0;
  }

  /** The `k` best persons scored, best first. */
  private best(list: Shortlist, k: number): SearchHit[] {
    const ids = this.parts.rows.slotIds;
    return [...list.scored]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([slot, score]) => ({ idPersona: ids.get(slot)!, score }));
  }
}
