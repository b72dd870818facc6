/** One request's end: when (ms, `performance.now()`) and the process's CPU time by then (µs). */
export interface Completion {
  at: number;
  cpuMicros: number;
}

export interface SteadyThroughput {
  /** Requests per second while every client had a request in flight. */
  rps: number;
  /** CPU time of every thread of the process over the same window, per second of it. */
  cores: number;
}

/**
 * Throughput of `clients` clients that each send their next request as the last one ends, over
 * the window in which all of them had one in flight: from the `clients`-th completion to the one
 * `clients` before the last. Before it the station fills up; after it the clients stop sending
 * and a station with several workers leaves some of them idle while the last requests finish,
 * which a one-worker station never does, so a run timed whole understates the ratio of the two.
 * The rate is the slope of the completions' count over time in the window (least squares), not
 * the count between its two ends: workers that started together finish in near-simultaneous
 * groups for a while, and ends that cut such a group would count it short.
 * `completions` in the order they ended.
 */
export function steadyThroughput(completions: readonly Completion[], clients: number): SteadyThroughput {
  const window = completions.slice(clients - 1, completions.length - clients);
  const first = window[0];
  const last = window.at(-1);
  if (!first || !last || window.length < 2 || last.at <= first.at) {
    throw new Error(`${completions.length} completions of ${clients} clients leave no steady window`);
  }
  const meanT = window.reduce((a, c) => a + c.at, 0) / window.length;
  const meanI = (window.length - 1) / 2;
  let sTI = 0;
  let sTT = 0;
  window.forEach((c, i) => {
    sTI += (c.at - meanT) * (i - meanI);
    sTT += (c.at - meanT) ** 2;
  });
  const seconds = (last.at - first.at) / 1000;
  return { rps: (1000 * sTI) / sTT, cores: (last.cpuMicros - first.cpuMicros) / 1e6 / seconds };
}
