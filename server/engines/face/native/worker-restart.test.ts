import { describe, expect, it } from 'vitest';
import { defaultModelsDir, FaceEngine } from '../face-engine.js';

// Its own file: nothing else in this process may hold onnxruntime's addon loaded.
describe('recognition networks on onnxruntime across worker restarts', () => {
  it('still run natively in a worker started after another one ended (a restart, a replaced worker)', async () => {
    const seen: string[] = [];
    for (let i = 0; i < 2; i++) {
      const engine = FaceEngine.start({
        modelsDir: defaultModelsDir(),
        workers: 1,
        warmUp: false,
        onEvent: (event, detail) =>
          event === 'worker-ready' && seen.push((detail as { descriptors: { runtime: string } }).descriptors.runtime),
      });
      await engine.ready();
      await engine.close();
    }
    expect(seen).toEqual(['native', 'native']);
  }, 120_000);
});
