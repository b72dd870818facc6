import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../common/scopes.js';
import { encodeTemplate } from '../../common/uitemplate/index.js';
import { packageRoot } from '../../server/version.js';
import { enrollAndVerify } from '../../scripts/packaging/smoke-checks.js';
import { startTestStation, type TestStation } from '../helpers/station.js';

// The packaged app's release check (npm run package:smoke) asks the station this; here it is
// asked of the headless station, so the check cannot drift from the API it checks.
let t: TestStation;
beforeAll(async () => {
  t = await startTestStation({}, { waitForEngines: true });
}, 120_000);
afterAll(() => t?.stop());

describe("the release smoke's questions", () => {
  it('pass on a real station: one person enrolled and verified, a stranger refused', async () => {
    const token = t.token([...SCOPES]);
    const face = (file: string) =>
      encodeTemplate({
        kind: 'face',
        frames: [{ data: new Uint8Array(readFileSync(path.join(packageRoot(), 'test', 'fixtures', file))) }],
        device: { kind: 'file' },
      });
    const post = async (p: string, body: unknown) => (await t.post(p, body, token)).json<never>();
    const templates = {
      enrol: await face('fr-obama.jpg'),
      again: await face('fr-obama2.jpg'),
      stranger: await face('fr-rose_leslie1.jpg'),
    };
    expect(await enrollAndVerify(post, templates)).toEqual([]);
    // And they can fail: the stranger as the person's second photo.
    expect(await enrollAndVerify(post, { ...templates, again: templates.stranger })).toEqual([
      expect.stringMatching(/verificar-UI: NOT_VERIFIED \(se esperaba CHECK_CONFIDENCE\)/),
    ]);
  }, 60_000);
});
