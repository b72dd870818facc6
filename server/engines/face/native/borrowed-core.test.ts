import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it, vi } from 'vitest';
import { IdleWorkers } from '../../idle-workers.js';
import { NativeGraph } from '../../onnx/onnx-session.js';
import { cosine } from '../../../matching/similarity.js';
import { packageRoot } from '../../../version.js';
import { defaultModelsDir } from '../face-engine.js';
import { FaceRuntime } from '../worker/face-runtime.js';
import { tf } from '../worker/model-loader.js';

const photo = path.join(packageRoot(), 'test', 'fixtures', 'fr-obama.jpg');
const rgb = async (size: number, left: number) =>
  new Uint8Array(
    await sharp(photo).extract({ left, top: 40, width: 260, height: 260 }).resize(size, size).removeAlpha().raw().toBuffer(),
  );

// While another worker of the pool is idle, the recognition networks run on sessions with a second
// thread; their descriptors must be the ones the one-thread sessions give (samples stay comparable).
describe('recognition networks on a borrowed core', () => {
  it('switch to their two-thread sessions only while a worker is idle, with the same descriptors', async () => {
    const idle = new IdleWorkers();
    const { descriptors } = await FaceRuntime.load(defaultModelsDir(), 'native', idle);
    expect(descriptors.runtime).toBe('native');
    expect(descriptors.borrowsIdleCores).toBe(true);
    const crops = [await rgb(112, 60), await rgb(112, 90)] as const;
    const square = await rgb(150, 75);
    const run = vi.spyOn(NativeGraph.prototype, 'run');
    const pass = async (idleWorkers: number) => {
      idle.set(idleWorkers);
      run.mockClear();
      const pair = await descriptors.embedPair(...crops);
      const tensor = tf.tensor3d(Int32Array.from(square), [150, 150, 3], 'int32');
      const [resNet] = await descriptors.faceApiDescriptors([tensor, tensor]);
      tensor.dispose();
      return { sessions: run.mock.contexts as NativeGraph[], embeddings: [...pair, resNet!] };
    };
    const alone = await pass(0);
    const lent = await pass(1);
    const again = await pass(0);
    run.mockRestore();
    expect(alone.sessions).toHaveLength(2);
    expect(lent.sessions).toHaveLength(2);
    for (let i = 0; i < 2; i++) {
      expect(lent.sessions[i]).not.toBe(alone.sessions[i]);
      expect(again.sessions[i]).toBe(alone.sessions[i]);
    }
    lent.embeddings.forEach((e, i) => expect(cosine(e, alone.embeddings[i]!)).toBeGreaterThan(0.99999));
  }, 120_000);
});
