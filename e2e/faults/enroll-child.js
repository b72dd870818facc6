// Child process for the SIGKILL test: enrolls persons with known embeddings as fast as it can and
// prints "ACK <id>" only after each enrollment call has returned (committed).
import { openSqliteStation } from '../../dist/server/storage/index.js';

const [dataDir, keyBase64, startArg] = process.argv.slice(2);
const { gallery } = openSqliteStation(dataDir, Buffer.from(keyBase64, 'base64'));
const embeddingOf = (i) => Float32Array.from({ length: 128 }, (_, k) => Math.sin(i * 131 + k));
for (let i = Number(startArg); ; i++) {
  await gallery.enroll(`p${i}`, [{ modelId: 'test', embedding: embeddingOf(i), quality: 50, thumbnail: null }], {
    replace: false,
  });
  process.stdout.write(`ACK p${i}\n`);
}
