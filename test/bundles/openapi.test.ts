// The OpenAPI document and the JSON Schemas in dist/: valid for a real validator, true to
// the prebuilt envelopes, and covering every response of the API contract.
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { OPENAPI_FILE, schemaPath } from '../../src/contract/build-files.ts';
import {
  METHOD_NOT_ALLOWED_BODY,
  RELEASE_NOT_FOUND_BODY,
  TOKEN_INVALID_BODY,
  TOKEN_REQUIRED_BODY,
  UNKNOWN_ENDPOINT_BODY,
} from '../../src/contract/messages.ts';
import { ALLOWED_METHODS, PREFLIGHT_HEADERS } from '../../src/contract/headers.ts';
import {
  listRoute,
  LOCAL_ORIGIN,
  MANIFEST_FILE,
  notFoundRoute,
  pagesRoute,
  RELEASES_ROUTE,
  SUGGEST_SHARD,
} from '../../src/contract/paths.ts';
import { routeText, scopeRoutes, storedBytes } from '../support/dist-routes.ts';
import { apiFields, kindById, kinds, type KindId } from '../../src/schema/kinds.ts';
import { buildManifestSchema } from '../../src/schema/manifest.ts';

const distDir = join(projectDir, 'dist');
const runFile = promisify(execFile);
const readDist = (path: string) => readFileSync(join(distDir, path), 'utf8');
const manifest = buildManifestSchema.parse(JSON.parse(readDist(MANIFEST_FILE)));

type Json = Record<string, unknown>;
interface Response {
  description: string;
  headers?: Record<string, unknown>;
  content?: { 'application/json': { schema: { $ref: string } } };
}
interface Operation {
  security?: unknown[];
  responses: Record<string, { $ref: string }>;
}
interface Document {
  paths: Record<string, Record<string, Operation> & { description?: string; parameters?: { $ref: string }[] }>;
  components: {
    schemas: Record<string, Json>;
    responses: Record<string, Response>;
    parameters: Record<string, { name: string; in: string; description: string }>;
    securitySchemes: Record<string, Json>;
    headers: Record<string, Json>;
  };
  security: unknown[];
  info: { version: string; description: string; license: Json };
  servers: { url: string }[];
  tags: { name: string; description: string }[];
}

const document = JSON.parse(readDist(OPENAPI_FILE)) as Document;
const componentName = (ref: { $ref: string }) => ref.$ref.split('/').at(-1) ?? '';

/** The response a path and method documents for a status. */
function documented(path: string, method: string, status: number): Response {
  const reference = document.paths[path]?.[method]?.responses[String(status)];
  if (!reference) throw new Error(`${method.toUpperCase()} ${path} documents no ${status}`);
  const response = document.components.responses[componentName(reference)];
  if (!response) throw new Error(`no component response ${reference.$ref}`);
  return response;
}

// The component schemas are JSON Schema 2020-12; Ajv compiles them strictly, resolving the
// document's own $refs (#/components/schemas/...).
const ajv = new Ajv2020({ strict: true, allErrors: true });
ajv.addKeyword('components');
ajv.addSchema({ $id: 'urn:treefarm:openapi', components: { schemas: document.components.schemas } });

function bodyValidator(response: Response) {
  const schema = response.content?.['application/json'].schema;
  if (!schema) throw new Error(`"${response.description}" documents no JSON body`);
  return ajv.compile({ $ref: `urn:treefarm:openapi${schema.$ref}` });
}

function expectValid(response: Response, body: unknown, label: string): void {
  const validate = bodyValidator(response);
  expect({ label, valid: validate(body), errors: validate.errors ?? null }).toEqual({
    label,
    valid: true,
    errors: null,
  });
}

test('the OpenAPI document passes the OpenAPI 3.1 validator', async () => {
  const result = await new Validator().validate(document as unknown as Json);
  expect(result).toEqual({ valid: true });
});

test('dist/openapi.json names the data version of the build it is part of', () => {
  expect(document.info.version).toBe(manifest.version);
  expect(document.components.headers['X-Data-Version']).toMatchObject({ schema: { examples: [manifest.version] } });
});

test('every component schema compiles under strict JSON Schema 2020-12', () => {
  for (const name of Object.keys(document.components.schemas)) {
    expect(() => ajv.getSchema(`urn:treefarm:openapi#/components/schemas/${name}`)).not.toThrow();
  }
});

test('every prebuilt answer of every scope validates against the response schema of its endpoint', () => {
  const scopes = [undefined, ...manifest.releases.map((release) => release.id)];
  /** Each body once per endpoint and status: many routes share one. */
  const checked = new Set<string>();
  for (const release of scopes) {
    for (const [route, stored] of scopeRoutes(release)) {
      // Routes under a leading `_` (the edge's fixed error bodies, the MCP app's view pages) belong
      // to no endpoint; near-miss shards and a kind's pages (the Discord app's links) are read, never sent.
      if (route.startsWith('_') || route.includes(`/${SUGGEST_SHARD}`)) continue;
      const [id = '', folder] = route.split('/');
      if (kinds.some((kind) => route === pagesRoute(kind.id))) continue;
      const seen = `${id} ${folder === 'suggest'} ${route.endsWith('/not-found')} ${stored}`;
      if (checked.has(seen)) continue;
      checked.add(seen);
      const name = `${route} of ${release ?? 'the current data'}`;
      const body = JSON.parse(storedBytes(stored).toString('utf8')) as unknown;
      if (route === RELEASES_ROUTE) {
        expectValid(documented('/api/releases', 'get', 200), body, name);
        continue;
      }
      const kind = kindById(id);
      if (!kind) throw new Error(`${name} is not an answer of a kind`);
      const endpoint = folder === 'suggest' ? `/api/${kind.id}/suggest` : `/api/${kind.id}`;
      const status = route === notFoundRoute(kind.id) ? 404 : 200;
      expectValid(documented(endpoint, 'get', status), body, name);
    }
  }
  expect(checked.size).toBeGreaterThan(kinds.length * 2);
});

test('a suggestion answer over 25 entries, or with a field but name and level, does not validate', () => {
  const validates = (response: Response, body: unknown) => bodyValidator(response)(body);
  const schema = documented('/api/trees/suggest', 'get', 200);
  const entries = Array.from({ length: 26 }, (_, index) => ({ name: `Tree ${index}`, level: index + 1 }));
  const message = 'Suggestions for the requested tree.';
  expect(validates(schema, { error: false, message, data: entries.slice(0, 25) })).toBe(true);
  expect(validates(schema, { error: false, message, data: entries })).toBe(false);
  const withAnotherField = [{ name: 'Oak Tree', level: 69, logValue: 1 }];
  expect(validates(schema, { error: false, message, data: withAnotherField })).toBe(false);
  expect(validates(documented('/api/plots/suggest', 'get', 200), { error: false, message, data: [] })).toBe(false);
});

test('/api/releases is documented: GET and HEAD with 200, 304, 401 and 429, its entries by the release schema', () => {
  for (const method of ['get', 'head'])
    expect(Object.keys(document.paths['/api/releases']?.[method]?.responses ?? {}).sort()).toEqual([
      '200',
      '304',
      '401',
      '429',
    ]);
  const entry = {
    id: '2026-12-01-2',
    date: '2026-12-01',
    version: '0123456789abcdef',
    notes: 'Oak rebalanced.',
    counts: { trees: 1, cutters: 0, gifts: 0, plots: 0, storages: 0, vehicles: 0 },
    changes: {
      added: [],
      removed: [{ kind: 'plots', level: 3 }],
      changed: [{ kind: 'trees', name: 'Oak Tree', level: 69, fields: { logValue: { from: 93741, to: 95000 } } }],
    },
  };
  const body = { error: false, message: 'The requested release data was successfully found.', data: [entry] };
  expectValid(documented('/api/releases', 'get', 200), body, 'a release list');
  expect(bodyValidator(documented('/api/releases', 'get', 200))({ ...body, data: [{ ...entry, id: '1.0' }] })).toBe(
    false,
  );
});

test('every kind takes the release parameter, and documents the unknown-release 404 and the immutable cache', () => {
  for (const kind of kinds) {
    const names = (document.paths[`/api/${kind.id}`]?.parameters ?? []).map(
      (parameter) => document.components.parameters[componentName(parameter)]?.name,
    );
    expect(names).toContain('release');
    expectValid(documented(`/api/${kind.id}`, 'get', 404), JSON.parse(RELEASE_NOT_FOUND_BODY), 'unknown release');
  }
  expect(JSON.stringify(document.components)).toContain('private, max-age=31536000, immutable');
});

test('a success envelope of another kind does not validate, so the schemas tell kinds apart', () => {
  const cutters = JSON.parse(routeText(listRoute('cutters'))) as unknown;
  expect(bodyValidator(documented('/api/trees', 'get', 200))(cutters)).toBe(false);
});

describe('every endpoint', () => {
  test.each(kinds.map((kind) => kind.id))(
    '/api/%s documents GET and HEAD with 200, 304, 401, 404 and 429 and no operation that cannot succeed',
    (id) => {
      const path = `/api/${id}`;
      for (const method of ['get', 'head']) {
        expect(Object.keys(document.paths[path]?.[method]?.responses ?? {}).sort()).toEqual([
          '200',
          '304',
          '401',
          '404',
          '429',
        ]);
      }
      expect(Object.keys(document.paths[path] ?? {}).sort()).toEqual(['description', 'get', 'head', 'parameters']);
    },
  );

  test.each(kinds.map((kind) => kind.id))('/api/%s notes that the trailing slash is the same endpoint', (id) => {
    expect(document.paths[`/api/${id}`]?.description).toContain(`/api/${id}/`);
  });

  test.each(kinds.map((kind) => kind.id))('/api/%s takes the search parameter with the search rules', (id) => {
    const [search] = document.paths[`/api/${id}`]?.parameters ?? [];
    const parameter = document.components.parameters[componentName(search ?? { $ref: '' })];
    expect(parameter).toMatchObject({ name: 'search', in: 'query' });
    for (const rule of ['first `search`', '`null` or `undefined`', 'ASCII digits', 'longer than 100 characters']) {
      expect(parameter?.description).toContain(rule);
    }
  });

  test.each(kinds.map((kind) => kind.id))(
    '/api/%s/suggest documents GET and HEAD with 200, 304, 401, the unknown-release 404, 429 and the suggestion rules',
    (id) => {
      const path = `/api/${id}/suggest`;
      for (const method of ['get', 'head']) {
        expect(Object.keys(document.paths[path]?.[method]?.responses ?? {}).sort()).toEqual([
          '200',
          '304',
          '401',
          '404',
          '429',
        ]);
      }
      expect(document.paths[path]?.description).toContain(`${path}/`);
      const [search] = document.paths[path]?.parameters ?? [];
      const parameter = document.components.parameters[componentName(search ?? { $ref: '' })];
      expect(parameter).toMatchObject({ name: 'search', in: 'query' });
      for (const rule of ['first 25 records', 'starts with v', 'within 1 edit', 'longer than 100 characters: []']) {
        expect(parameter?.description).toContain(rule);
      }
    },
  );

  test('HEAD documents the headers of GET and no body', () => {
    const get = documented('/api/trees', 'get', 200);
    const head = documented('/api/trees', 'head', 200);
    expect(head.headers).toEqual(get.headers);
    expect(head.content).toBeUndefined();
  });
});

test('the token is an apiKey in the Authorization header, bare or Bearer, required everywhere but OPTIONS', () => {
  const [scheme] = Object.values(document.components.securitySchemes);
  expect(scheme).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
  expect(scheme?.['description']).toContain('Bearer <token>');
  expect(document.security).toEqual([{ [Object.keys(document.components.securitySchemes)[0] ?? '']: [] }]);
  expect(document.info.description).toContain('OPTIONS, the CORS preflight, needs no token');
});

test('401 documents both messages and WWW-Authenticate', () => {
  const response = documented('/api/trees', 'get', 401);
  expect(Object.keys(response.headers ?? {})).toContain('WWW-Authenticate');
  for (const body of [TOKEN_REQUIRED_BODY, TOKEN_INVALID_BODY]) expectValid(response, JSON.parse(body), body);
  expect(bodyValidator(response)({ error: true, message: 'Something else.' })).toBe(false);
});

describe('the answers no operation can document are in the description, with their exact bodies', () => {
  test('405 for any other method, with Allow and the method message', () => {
    expect(document.info.description).toContain(
      `405 with \`Allow: ${ALLOWED_METHODS}\` and \`${METHOD_NOT_ALLOWED_BODY}\``,
    );
  });

  test('404 for an unknown endpoint, with the list of endpoints', () => {
    expect(document.info.description).toContain(`404 with \`${UNKNOWN_ENDPOINT_BODY}\``);
  });

  test('204 for OPTIONS, with the CORS headers', () => {
    for (const [name, value] of Object.entries(PREFLIGHT_HEADERS))
      expect(document.info.description).toContain(`\`${name}: ${value}\``);
  });
});

test('Redocly CLI’s recommended ruleset finds no error and no warning', async () => {
  const redocly = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
  const { stdout } = await runFile(process.execPath, [redocly, 'lint', join(distDir, OPENAPI_FILE), '--format=json'], {
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  const report = JSON.parse(stdout) as {
    totals: { errors: number; warnings: number };
    problems: { ruleId: string; location: { pointer: string }[] }[];
  };
  // GET and HEAD /healthz need no token and have no 4xx answer to document: the one expected warning each.
  const healthHas4xx = (problem: (typeof report.problems)[number]) =>
    problem.ruleId === 'operation-4xx-response' &&
    problem.location.every(({ pointer }) => pointer.startsWith('#/paths/~1healthz/'));
  expect(report.problems.filter(healthHas4xx)).toHaveLength(2);
  expect({
    errors: report.totals.errors,
    problems: report.problems.filter((problem) => !healthHas4xx(problem)),
  }).toEqual({
    errors: 0,
    problems: [],
  });
});

test('the document names its servers and its licence', () => {
  expect(document.servers.map((server) => server.url)).toEqual(['/', LOCAL_ORIGIN]);
  expect(document.info.license).toEqual({ name: 'MIT License', identifier: 'MIT' });
});

test('every tag has a description', () => {
  expect(document.tags.map((tag) => tag.name)).toEqual([...kinds.map((kind) => kind.id), 'releases', 'mcp', 'health']);
  for (const tag of document.tags)
    expect({ tag: tag.name, described: tag.description.length > 0 }).toEqual({
      tag: tag.name,
      described: true,
    });
});

test('200 documents X-Data-Version, ETag, Cache-Control, Vary and Content-Encoding; 304 its ETag', () => {
  const headers = Object.keys(documented('/api/trees', 'get', 200).headers ?? {});
  for (const name of ['X-Data-Version', 'ETag', 'Cache-Control', 'Vary', 'Content-Encoding'])
    expect(headers).toContain(name);
  expect(Object.keys(documented('/api/trees', 'get', 304).headers ?? {})).toContain('ETag');
});

describe('the JSON Schema of each record kind', () => {
  const records = (kind: KindId) => (JSON.parse(routeText(listRoute(kind))) as { data: Json[] }).data;
  const recordSchema = (kind: KindId) => JSON.parse(readDist(schemaPath(kind))) as { properties: Json };

  test.each(kinds.map((kind) => kind.id))('schemas/%s.json accepts every record the API serves', (id) => {
    const validate = new Ajv2020({ strict: true }).compile(recordSchema(id));
    for (const record of records(id)) expect({ record, valid: validate(record) }).toEqual({ record, valid: true });
  });

  test.each(kinds.map((kind) => kind.id))(
    'schemas/%s.json refuses a record with a field the API does not serve',
    (id) => {
      const validate = new Ajv2020({ strict: true }).compile(recordSchema(id));
      expect(validate({ ...records(id)[0], slug: 'extra' })).toBe(false);
    },
  );

  test.each(kinds)('schemas/$id.json lists the API fields in API order', (kind) => {
    expect(Object.keys(recordSchema(kind.id).properties)).toEqual(apiFields(kind));
  });
});
