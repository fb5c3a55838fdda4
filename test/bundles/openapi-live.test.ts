// The OpenAPI document against the running API: every answer of the local server has a
// documented status, only documented headers with documented values, and a body that
// validates against the documented schema.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { OPENAPI_FILE } from '../../src/contract/build-files.ts';
import { distDir, startRuntime, type Runtime } from '../support/runtimes.ts';

type Json = Record<string, unknown>;
interface Response {
  headers?: Record<string, { $ref: string }>;
  content?: { 'application/json': { schema: { $ref: string } } };
}
interface Document {
  info: { description: string };
  paths: Record<string, Record<string, { responses: Record<string, { $ref: string }> }>>;
  components: {
    schemas: Record<string, Json>;
    responses: Record<string, Response>;
    headers: Record<string, { schema: Json }>;
  };
}

const document = JSON.parse(readFileSync(join(distDir, OPENAPI_FILE), 'utf8')) as Document;
const componentName = (ref: { $ref: string }) => ref.$ref.split('/').at(-1) ?? '';
const ajv = new Ajv2020({ strict: true, allErrors: true });
ajv.addKeyword('components');
ajv.addSchema({ $id: 'urn:treefarm:openapi', components: { schemas: document.components.schemas } });

/** Headers every HTTP response may carry that say nothing about the API. */
const TRANSPORT_HEADERS = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);
const TOKEN = 'openapi-live-token';

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startRuntime('node', { tokens: [TOKEN] });
});
afterAll(() => runtime?.close());

interface Case {
  label: string;
  /** The path template of the document that the request falls under; none for an answer of the description. */
  template?: string;
  path: string;
  method?: string;
  headers?: Record<string, string>;
}

const auth = { Authorization: `Bearer ${TOKEN}` };
const cases: Case[] = [
  { label: 'the whole list', template: '/api/trees', path: '/api/trees', headers: auth },
  {
    label: 'a name, bare token',
    template: '/api/cutters',
    path: '/api/cutters?search=bread%20knife',
    headers: { Authorization: TOKEN },
  },
  { label: 'a level, trailing slash', template: '/api/gifts', path: '/api/gifts/?search=1', headers: auth },
  { label: 'gzip', template: '/api/plots', path: '/api/plots', headers: { ...auth, 'Accept-Encoding': 'gzip' } },
  { label: 'HEAD', template: '/api/trees', path: '/api/trees?search=2', method: 'HEAD', headers: auth },
  { label: 'not found', template: '/api/storages', path: '/api/storages?search=unicorn', headers: auth },
  { label: 'no token', template: '/api/trees', path: '/api/trees' },
  { label: 'a wrong token', template: '/api/trees', path: '/api/trees', headers: { Authorization: 'Bearer wrong' } },
  { label: 'an unknown endpoint', path: '/api/unicorns', headers: auth },
  { label: 'a write', path: '/api/vehicles', method: 'POST', headers: auth },
  { label: 'a preflight', path: '/api/trees', method: 'OPTIONS' },
  { label: 'suggestions', template: '/api/trees/suggest', path: '/api/trees/suggest?search=oak', headers: auth },
  {
    label: 'a near-miss suggestion, br',
    template: '/api/trees/suggest',
    path: '/api/trees/suggest?search=sequioa',
    headers: { ...auth, 'Accept-Encoding': 'br' },
  },
  { label: 'no suggestion', template: '/api/plots/suggest', path: '/api/plots/suggest?search=oak', headers: auth },
  {
    label: 'suggestions of an unknown release',
    template: '/api/trees/suggest',
    path: '/api/trees/suggest?search=oak&release=1999-01-01',
    headers: auth,
  },
  { label: 'suggestions without a token', template: '/api/trees/suggest', path: '/api/trees/suggest' },
  { label: 'a path below suggest', path: '/api/trees/suggest/oak', headers: auth },
];

/** An answer no operation documents: its status, body and header values are in the description (or components). */
async function checkAgainstDescription({ label }: Case, response: globalThis.Response): Promise<number> {
  const description = document.info.description.toLowerCase();
  const body = await response.text();
  expect({ label, status: description.includes(` ${response.status} `) }).toEqual({ label, status: true });
  expect({ label, body: body === '' || description.includes(body.toLowerCase()) }).toEqual({ label, body: true });
  for (const [name, value] of response.headers) {
    if (TRANSPORT_HEADERS.has(name) || name === 'x-data-version') continue;
    // Named with its value in the description, or a header component that accepts the value.
    const component = Object.entries(document.components.headers).find(([known]) => known.toLowerCase() === name);
    const documented =
      description.includes(`${name}: ${value}`.toLowerCase()) ||
      (component !== undefined && ajv.validate(component[1].schema, value));
    expect({ label, header: `${name}: ${value}`, documented }).toEqual({
      label,
      header: `${name}: ${value}`,
      documented: true,
    });
  }
  return response.status;
}

async function checkAgainstDocument(case_: Case, response: globalThis.Response): Promise<number> {
  const { label, template, path, method = 'GET' } = case_;
  if (template === undefined) return checkAgainstDescription(case_, response);
  const reference = document.paths[template]?.[method.toLowerCase()]?.responses[String(response.status)];
  expect({ label, documented: reference !== undefined }).toEqual({ label, documented: true });
  const documented = document.components.responses[componentName(reference ?? { $ref: '' })] ?? {};
  for (const [name, value] of response.headers) {
    if (TRANSPORT_HEADERS.has(name)) continue;
    const header = Object.entries(documented.headers ?? {}).find(
      ([documentedName]) => documentedName.toLowerCase() === name,
    );
    expect({ label, path, header: name, documented: header !== undefined }).toEqual({
      label,
      path,
      header: name,
      documented: true,
    });
    const schema = document.components.headers[componentName(header?.[1] ?? { $ref: '' })]?.schema ?? {};
    expect({ label, header: name, value, valid: ajv.validate(schema, value) }).toEqual({
      label,
      header: name,
      value,
      valid: true,
    });
  }
  const body = await response.text();
  const schema = documented.content?.['application/json'].schema;
  if (schema && method !== 'HEAD') {
    const validate = ajv.compile({ $ref: `urn:treefarm:openapi${schema.$ref}` });
    expect({ label, valid: validate(JSON.parse(body)), errors: validate.errors ?? null }).toEqual({
      label,
      valid: true,
      errors: null,
    });
  } else {
    expect({ label, body }).toEqual({ label, body: '' });
  }
  return response.status;
}

test('every answer of the local server is documented: status, headers and body', async () => {
  const statuses: number[] = [];
  for (const request of cases) {
    const response = await fetch(`${runtime.url}${request.path}`, {
      method: request.method ?? 'GET',
      headers: request.headers ?? {},
    });
    statuses.push(await checkAgainstDocument(request, response));
  }
  expect(statuses).toEqual([200, 200, 200, 200, 200, 404, 401, 401, 404, 405, 204, 200, 200, 200, 404, 401, 404]);
});

test('a 304 answer is documented, with its headers', async () => {
  const first = await fetch(`${runtime.url}/api/trees`, { headers: auth });
  const etag = first.headers.get('etag') ?? '';
  const request: Case = {
    label: '304',
    template: '/api/trees',
    path: '/api/trees',
    headers: { ...auth, 'If-None-Match': etag },
  };
  const response = await fetch(`${runtime.url}${request.path}`, { headers: request.headers ?? {} });
  expect(await checkAgainstDocument(request, response)).toBe(304);
});
