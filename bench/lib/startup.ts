import type { StationConfigInput } from '../../server/config/index.js';
import { benchStation } from './station.js';

export type StartupRow = {
  warm_up: boolean;
  ready_ms: number;
  first_request_ms: number;
  second_ms: number;
  third_ms: number;
};

/**
 * A station's start, alternately without and with its engine's warm-up (`runs` times each): time
 * until the engine is ready, then the first three requests of one operation.
 */
export async function measureStartup(
  configFor: (warmUp: boolean) => Partial<StationConfigInput>,
  path: string,
  body: string,
  runs = 2,
): Promise<StartupRow[]> {
  const rows: StartupRow[] = [];
  for (let r = 0; r < runs; r++) {
    for (const warmUp of [false, true]) {
      const t0 = performance.now();
      const s = await benchStation(configFor(warmUp));
      const readyMs = performance.now() - t0;
      const ms: number[] = [];
      try {
        for (let i = 0; i < 3; i++) {
          const answer = await s.post(path, body);
          if (answer.status !== 200) throw new Error(`${path} at start: HTTP ${answer.status}`);
          ms.push(Math.round(answer.ms));
        }
      } finally {
        await s.stop();
      }
      rows.push({
        warm_up: warmUp,
        ready_ms: Math.round(readyMs),
        first_request_ms: ms[0]!,
        second_ms: ms[1]!,
        third_ms: ms[2]!,
      });
    }
  }
  return rows;
}
