import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../common/api/operations.js';
import { loadConfig } from '../../server/config/load.js';
import { createLogger } from '../../server/log/logger.js';
import { normalize } from '../../server/matching/similarity.js';
import { startStation } from '../../server/station/index.js';
import { loadOrCreateDataKey, openSqliteStation, SEARCH_INDEX_DIR } from '../../server/storage/index.js';
import { expectEnvelope } from '../helpers/envelope.js';
import { makeClient } from '../helpers/https-client.js';
import { faceTemplate } from '../helpers/templates.js';

// The 1:N index across restarts of a real station on one data directory: loaded from its snapshot
// after a clean stop, rebuilt when the gallery changed behind it (as after a crash).
const dataDir = mkdtempSync(path.join(tmpdir(), 'enrolla-index-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function start() {
  const config = loadConfig({
    env: {},
    overrides: {
      dataDir,
      port: 0,
      logLevel: 'silent',
      engines: { face: { enabled: true, workers: 1, maxQueue: 32 }, document: { enabled: false } },
    },
  });
  const station = await startStation(config, { logger: createLogger('silent'), consoleDir: null, waitForEngines: true });
  const send = makeClient(station.url, readFileSync(path.join(dataDir, 'tls', 'station-cert.pem'), 'utf8'));
  const token = station.tokens.create(`t${Date.now()}`, ['enroll', 'identify']).token;
  const post = async (op: keyof typeof OPERATIONS, body: unknown) =>
    expectEnvelope(
      await send(OPERATIONS[op].path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      }),
      200,
    ).data as { status: string; candidates?: { idPersona: string; confidence: number }[] };
  return { station, post };
}

describe('the search index across restarts', () => {
  it('answers the same after a clean restart and follows changes made while it was down', async () => {
    const kitProbe = await faceTemplate('fr-kit_harington_test1.jpg');
    const a = await start();
    await a.post('enroll', { idPersona: 'kit', template: await faceTemplate('fr-kit_harington2.jpg') });
    await a.post('enroll', { idPersona: 'rose', template: await faceTemplate('fr-rose_leslie1.jpg') });
    const before = await a.post('identify', { template: kitProbe });
    expect(before).toMatchObject({ status: 'IDENTIFY_OK', candidates: [{ idPersona: 'kit' }] });
    // The rows the index keeps (normalised), 32 bytes of each: the snapshot is sealed, none in clear.
    const rows: Buffer[] = [];
    for (const id of ['kit', 'rose'])
      for (const s of await a.station.gallery.embeddingsOf(id))
        rows.push(Buffer.from(normalize(s.embedding).buffer).subarray(0, 32));
    await a.station.close();
    const indexDir = path.join(dataDir, SEARCH_INDEX_DIR);
    const snapshots = readdirSync(indexDir).filter((f) => f.endsWith('.snapshot'));
    expect(snapshots.length).toBe(1);
    const sealed = readFileSync(path.join(indexDir, snapshots[0]!));
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows.filter((row) => sealed.includes(row))).toEqual([]);

    const b = await start();
    const after = await b.post('identify', { template: kitProbe });
    expect(after.candidates).toEqual(before.candidates);
    await b.post('deletePerson', { idPersona: 'kit' });
    expect(await b.post('identify', { template: kitProbe })).toMatchObject({ status: 'NOT_IDENTIFIED' });
    await b.station.close();

    // While the station is down the gallery changes (as if the last enrollments were committed
    // and the process died before its snapshot): the next start must not trust the old snapshot.
    const stationA = await start();
    const enrolled = (await stationA.post('enroll', { idPersona: 'kit2', template: await faceTemplate('fr-kit_harington2.jpg') }))
      .status;
    expect(enrolled).toBe('SUCCESS');
    const samples = await stationA.station.gallery.embeddingsOf('kit2');
    await stationA.station.close();
    const store = openSqliteStation(dataDir, loadOrCreateDataKey(dataDir, {}));
    await store.gallery.deletePerson('kit2');
    await store.gallery.enroll(
      'kit3',
      samples.map((s) => ({ ...s, quality: 80, thumbnail: null })),
      { replace: true },
    );
    store.close();
    const c = await start();
    expect(await c.post('identify', { template: kitProbe })).toMatchObject({
      status: 'IDENTIFY_OK',
      candidates: [{ idPersona: 'kit3' }],
    });
    await c.station.close();
    expect(existsSync(dataDir)).toBe(true);
  }, 180_000);
});
