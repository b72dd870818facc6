import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../common/api/operations.js';
import { createLogger } from '../../server/log/logger.js';
import { DATABASE_FILE, SEARCH_INDEX_DIR } from '../../server/storage/index.js';
import { expectEnvelope } from '../helpers/envelope.js';
import { startTestStation } from '../helpers/station.js';
import { faceTemplate } from '../helpers/templates.js';

// A sample whose sealed value changed on disk (a bad sector, a bit flip, an edit) no longer opens.
// The station must still start and serve everyone else: the sample is left out of 1:N and named
// in the log, the person's own operations say what is wrong, and enrolling them again mends it.
const dataDir = mkdtempSync(path.join(tmpdir(), 'enrolla-damaged-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function start(logLines: string[] = []) {
  const t = await startTestStation(
    { dataDir, engines: { face: { enabled: true, workers: 1, maxQueue: 32 }, document: { enabled: false } } },
    { waitForEngines: true, logger: createLogger('warn', { write: (line: string) => void logLines.push(line) }) },
  );
  const token = t.token(['enroll', 'verify', 'identify'], `t${Date.now()}`);
  const post = (op: keyof typeof OPERATIONS, body: unknown) => t.post(OPERATIONS[op].path, body, token);
  const ok = async (op: keyof typeof OPERATIONS, body: unknown) =>
    expectEnvelope(await post(op, body), 200).data as { status: string; candidates?: { idPersona: string }[] };
  // Closed, not stopped: the data directory outlives each start.
  return { station: t.station, post, ok };
}

describe('a stored sample damaged on disk', () => {
  it('is left out of 1:N and reported; the station starts and serves the others; enrolling again mends it', async () => {
    const kitProbe = await faceTemplate('fr-kit_harington_test1.jpg');
    const obamaProbe = await faceTemplate('fr-obama2.jpg');
    const a = await start();
    expect((await a.ok('enroll', { idPersona: 'kit', template: await faceTemplate('fr-kit_harington2.jpg') })).status).toBe(
      'SUCCESS',
    );
    expect((await a.ok('enroll', { idPersona: 'obama', template: await faceTemplate('fr-obama.jpg') })).status).toBe('SUCCESS');
    await a.station.close();

    // One bit of kit's sealed embedding flips, and the index must be rebuilt from the database.
    const db = new Database(path.join(dataDir, DATABASE_FILE));
    const row = db
      .prepare<[string], { id: number; embedding: Buffer }>('SELECT id, embedding FROM face_samples WHERE id_persona = ?')
      .get('kit')!;
    const damaged = Buffer.from(row.embedding);
    damaged[damaged.length >> 1]! ^= 0x10;
    db.prepare('UPDATE face_samples SET embedding = ? WHERE id = ?').run(damaged, row.id);
    db.close();
    rmSync(path.join(dataDir, SEARCH_INDEX_DIR), { recursive: true, force: true });

    const log: string[] = [];
    const b = await start(log);
    const reported = log.map((l) => JSON.parse(l) as { idPersona?: string; msg: string }).filter((l) => l.idPersona === 'kit');
    expect(reported).toHaveLength(1);
    expect(reported[0]!.msg).toMatch(/muestra ilegible: queda fuera de la búsqueda 1:N; vuelva a enrolar/);
    expect(await b.ok('identify', { template: obamaProbe })).toMatchObject({
      status: 'IDENTIFY_OK',
      candidates: [{ idPersona: 'obama' }],
    });
    expect(await b.ok('identify', { template: kitProbe })).toMatchObject({ status: 'NOT_IDENTIFIED' });
    const verify = expectEnvelope(await b.post('verify', { idPersona: 'kit', template: kitProbe }), 503);
    expect(verify.error.descripcion).toMatch(/^Muestra de kit ilegible: .* No se guardó nada de esta solicitud\.$/);

    const again = await b.ok('enroll', {
      idPersona: 'kit',
      template: await faceTemplate('fr-kit_harington2.jpg'),
      parametros: { replaceSamples: true },
    });
    expect(again.status).toBe('SUCCESS');
    expect(await b.ok('identify', { template: kitProbe })).toMatchObject({
      status: 'IDENTIFY_OK',
      candidates: [{ idPersona: 'kit' }],
    });
    expect((await b.ok('verify', { idPersona: 'kit', template: kitProbe })).status).toBe('CHECK_CONFIDENCE');
    await b.station.close();
  }, 180_000);
});
