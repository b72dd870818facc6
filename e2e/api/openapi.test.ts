import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, PUBLIC_PATHS } from '../../common/api/operations.js';
import { SCOPES } from '../../common/scopes.js';
import { encodeTemplate } from '../../common/uitemplate/index.js';
import { serializeOpenApi } from '../../server/cli/openapi-command.js';
import { packageRoot } from '../../server/version.js';
import { PEOPLE } from '../../test/dni/dni-person.js';
import { renderBack2012, renderFront2012 } from '../../test/dni/synthetic-card.js';
import { expectEnvelope } from '../helpers/envelope.js';
import { startTestStation, type TestStation } from '../helpers/station.js';
import {
  COMMON_DATA_FIELDS,
  ENVELOPE_FIELDS,
  EXTRACT_PARAMETERS,
  FACE_POSE_SENSIBILITY,
  REQUEST_FIELDS,
  RESPONSE_FIELDS,
  type FieldList,
  type JsonType,
} from './contract-fields.js';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  $ref?: string;
};

const fixture = (name: string) => new Uint8Array(readFileSync(path.join(packageRoot(), 'test', 'fixtures', name)));

let t: TestStation;
let doc: { paths: Record<string, { post: { requestBody: unknown; responses: Record<string, unknown> } }>; components: unknown };
beforeAll(async () => {
  t = await startTestStation({}, { waitForEngines: true });
  doc = (await t.send(PUBLIC_PATHS.openapi)).json();
}, 120_000);
afterAll(() => t?.stop());

/** The JSON types a schema node allows (a nullable field allows its type and null). */
function typesOf(node: Schema, root: unknown): Set<string> {
  if (node.$ref) return typesOf(resolveRef(node.$ref, root), root);
  if (node.anyOf) return new Set(node.anyOf.flatMap((n) => [...typesOf(n, root)]));
  if (node.type) return new Set(Array.isArray(node.type) ? node.type : [node.type]);
  const values = node.enum ?? (node.const !== undefined ? [node.const] : []);
  return new Set(values.map((v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)));
}

function resolveRef(ref: string, root: unknown): Schema {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((n, k) => (n as Record<string, unknown>)[k], root) as Schema;
}

/** The schema at a field path (`a.b`, `a[]`), through nullable branches and references. */
function schemaAt(node: Schema, fieldPath: string, root: unknown): Schema | undefined {
  let current: Schema | undefined = node;
  for (const step of fieldPath.split('.').flatMap((s) => (s.endsWith('[]') ? [s.slice(0, -2), '[]'] : [s]))) {
    if (!current) return undefined;
    if (current.$ref) current = resolveRef(current.$ref, root);
    const branches: Schema[] = current.anyOf ?? [current];
    current = branches.map((b) => (step === '[]' ? b.items : b.properties?.[step])).find((n) => n !== undefined);
  }
  return current;
}

const allows = (types: Set<string>, wanted: JsonType) => types.has(wanted) || (wanted === 'number' && types.has('integer'));

/** The values at a field path of a real answer: one, or each item's under `[]`. */
function valuesAt(value: unknown, fieldPath: string): unknown[] {
  let values = [value];
  for (const step of fieldPath.split('.').flatMap((s) => (s.endsWith('[]') ? [s.slice(0, -2), '[]'] : [s]))) {
    values = values.flatMap((v) =>
      step === '[]' ? (Array.isArray(v) ? v : [undefined]) : [(v as Record<string, unknown> | null)?.[step]],
    );
  }
  return values;
}

function jsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function checkDocumented(schema: Schema, fields: FieldList, where: string): string[] {
  return fields.flatMap(([field, type]) => {
    const node = schemaAt(schema, field, doc);
    if (!node) return [`${where}: ${field} no está en el documento`];
    const types = typesOf(node, doc);
    return allows(types, type) ? [] : [`${where}: ${field} es ${[...types].join('|')}, el contrato dice ${type}`];
  });
}

function checkAnswer(value: unknown, fields: FieldList, where: string): string[] {
  return fields.flatMap(([field, type]) =>
    valuesAt(value, field).flatMap((v) => {
      const found = jsonTypeOf(v);
      return found === type || (type === 'number' && found === 'integer')
        ? []
        : [`${where}: ${field} llegó ${found}, el contrato dice ${type}`];
    }),
  );
}

const responseSchema = (id: keyof typeof OPERATIONS) =>
  (doc.paths[OPERATIONS[id].path]!.post.responses['200'] as { content: Record<string, { schema: Schema }> }).content[
    'application/json'
  ]!.schema;
const requestSchema = (id: keyof typeof OPERATIONS) =>
  (doc.paths[OPERATIONS[id].path]!.post.requestBody as { content: Record<string, { schema: Schema }> }).content[
    'application/json'
  ]!.schema;

describe('OpenAPI document', () => {
  it('is committed and has not drifted from the schemas (regenerate with `npm run openapi`)', () => {
    const committed = readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');
    expect(committed).toBe(serializeOpenApi());
  });

  it('lists every path with its scope, bearer auth and error answers', () => {
    for (const op of Object.values(OPERATIONS)) {
      const post = doc.paths[op.path]?.post;
      expect(post, op.path).toMatchObject({ operationId: op.id, 'x-scope': op.scope, security: [{ bearerAuth: [] }] });
      expect(Object.keys(post!.responses)).toEqual(
        expect.arrayContaining(['200', '400', '401', '403', '413', '415', '429', '500']),
      );
    }
  });

  it('documents every field the contract names, by path and type, in every request and answer', () => {
    const problems: string[] = [];
    for (const id of Object.keys(OPERATIONS) as (keyof typeof OPERATIONS)[]) {
      const answer = responseSchema(id);
      problems.push(...checkDocumented(answer, ENVELOPE_FIELDS, id));
      const data = schemaAt(answer, 'data', doc)!;
      problems.push(...checkDocumented(data, [...COMMON_DATA_FIELDS, ...(RESPONSE_FIELDS[id] ?? [])], `${id}.data`));
      problems.push(
        ...checkDocumented(requestSchema(id), [...(REQUEST_FIELDS[id] ?? []), ['auditToken', 'string']], `${id} (solicitud)`),
      );
    }
    expect(problems).toEqual([]);
  });

  it('has a human-readable page that names every path and field', async () => {
    const res = await t.send(PUBLIC_PATHS.docs);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    for (const op of Object.values(OPERATIONS)) expect(res.text).toContain(op.path);
    expect(res.text).toContain('parametros.minIOD');
    expect(res.text).not.toMatch(/<script[^>]+src=/);
  });
});

describe('real answers', () => {
  it('carry every field the contract names with its type, on real engines and real photos and cards', async () => {
    const face = (...files: string[]) =>
      encodeTemplate({ kind: 'face', frames: files.map((f) => ({ data: fixture(f) })), device: { kind: 'file' } });
    const person = PEOPLE.ordinary!;
    const [front, back] = [
      await renderFront2012(person, { portraitPhoto: Buffer.from(fixture('fr-obama.jpg')) }),
      await renderBack2012(person),
    ];
    const dni = await encodeTemplate({
      kind: 'document',
      frames: [
        { data: new Uint8Array(front.image), side: 'front' },
        { data: new Uint8Array(back.image), side: 'back' },
      ],
      device: { kind: 'file' },
    });
    // Every parametro of section 2.3 sent, at the vendor console's defaults.
    const parametros = {
      ...Object.fromEntries(
        Object.entries(EXTRACT_PARAMETERS).map(([k, type]) => [k, type === 'boolean' ? k !== 'useCache' : undefined]),
      ),
      blinkSensibility: 0.3,
      facePoseSensibility: Object.fromEntries(FACE_POSE_SENSIBILITY.map((k, i) => [k, [-20, 8, -20, 20, 10][i]])),
      maxCLAHE: 10,
      maxRoll: 90,
      maxYaw: 90,
      minCLAHE: 4,
      minConfidence: 80,
      minIOD: 30,
      minQuality: 10,
      scaleH: 0,
      thumbnailWidth: 128,
      videoFramesSeq: 1,
    };
    const answers: [keyof typeof OPERATIONS, unknown][] = [];
    const token = t.token([...SCOPES]);
    const call = async (id: keyof typeof OPERATIONS, body: object) => {
      const res = await t.post(OPERATIONS[id].path, { ...body, auditToken: `contrato-${id}` }, token);
      answers.push([id, expectEnvelope(res, 200)]);
    };
    await call('enroll', { idPersona: '30111222', template: await face('fr-obama.jpg') });
    await call('verify', { idPersona: '30111222', template: await face('fr-obama2.jpg') });
    await call('identify', { template: await face('fr-obama2.jpg') });
    await call('extractFace', { template: await face('fr-obama2.jpg'), parametros });
    await call('spoof', {
      template: await face('fr-obama2.jpg'),
      image: Buffer.from(fixture('fr-obama.jpg')).toString('base64'),
      parametros: { threshold: 50, extractFace: true },
    });
    await call('extractDni', {
      template: dni,
      parametros: { extractFace: true, extractMRZ: true, extractPDF417: true, useCache: false },
    });

    const problems: string[] = [];
    for (const [id, body] of answers) {
      problems.push(...checkAnswer(body, ENVELOPE_FIELDS, id));
      problems.push(
        ...checkAnswer((body as { data: unknown }).data, [...COMMON_DATA_FIELDS, ...RESPONSE_FIELDS[id]!], `${id}.data`),
      );
    }
    expect(problems).toEqual([]);
    expect(answers.map(([id, b]) => [id, (b as { data: { status: string; exception: boolean } }).data.exception])).toEqual(
      answers.map(([id]) => [id, false]),
    );
  }, 120_000);
});
