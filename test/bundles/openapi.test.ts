// The OpenAPI document and the JSON Schemas in dist/: valid for a real validator, true to
// the prebuilt envelopes, and covering every response of the API contract.
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { projectDir } from '../../src/build/site.ts';
import { loadContent } from '../../src/build/content.ts';
import { schemaPath } from '../../src/build/json-schemas.ts';
import { OPENAPI_FILE, openApiFile } from '../../src/build/openapi.ts';
import {
  METHOD_NOT_ALLOWED_BODY,
  TOKEN_INVALID_BODY,
  TOKEN_REQUIRED_BODY,
  UNKNOWN_ENDPOINT_BODY,
} from '../../src/contract/messages.ts';
import { API_DIR, MANIFEST_FILE, notFoundPath } from '../../src/contract/paths.ts';
import { apiFields, kindById, kinds, type KindId } from '../../src/schema/kinds.ts';
import { manifestSchema } from '../../src/schema/manifest.ts';

const distDir = join(projectDir, 'dist');
const readDist = (path: string) => readFileSync(join(distDir, path), 'utf8');
const manifest = manifestSchema.parse(JSON.parse(readDist(MANIFEST_FILE)));

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
  };
  security: unknown[];
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

test('dist/openapi.json is the document of the built data version', () => {
  expect(readDist(OPENAPI_FILE)).toBe(openApiFile(manifest.version));
  expect(manifest.version).toBe(loadContent(join(projectDir, 'content')).version);
});

test('every component schema compiles under strict JSON Schema 2020-12', () => {
  for (const name of Object.keys(document.components.schemas)) {
    expect(() => ajv.getSchema(`urn:treefarm:openapi#/components/schemas/${name}`)).not.toThrow();
  }
});

test('every prebuilt envelope of the manifest validates against the response schema of its endpoint', () => {
  const paths = Object.keys(manifest.files);
  expect(paths.length).toBeGreaterThan(kinds.length * 2);
  for (const path of paths) {
    const [, id = '', folder, subfolder] = path.split('/');
    const kind = kindById(id);
    if (!path.startsWith(`${API_DIR}/`) || !kind) throw new Error(`${path} is not an envelope of a kind`);
    // Near-miss shards are the index a suggestion is merged from, never an answer themselves.
    if (folder === 'suggest' && subfolder === 'near') continue;
    const endpoint = folder === 'suggest' ? `/api/${kind.id}/suggest` : `/api/${kind.id}`;
    const status = path === notFoundPath(kind.id) ? 404 : 200;
    expectValid(documented(endpoint, 'get', status), JSON.parse(readDist(path)), path);
  }
});

test('a success envelope of another kind does not validate, so the schemas tell kinds apart', () => {
  const cutters = JSON.parse(readDist(`${API_DIR}/cutters/index.json`)) as unknown;
  expect(bodyValidator(documented('/api/trees', 'get', 200))(cutters)).toBe(false);
});

describe('every endpoint', () => {
  test.each(kinds.map((kind) => kind.id))(
    '/api/%s documents GET and HEAD with 200, 304, 401 and 404, OPTIONS with 204, and 405 for writes',
    (id) => {
      const path = `/api/${id}`;
      for (const method of ['get', 'head']) {
        expect(Object.keys(document.paths[path]?.[method]?.responses ?? {}).sort()).toEqual([
          '200',
          '304',
          '401',
          '404',
        ]);
      }
      expect(Object.keys(document.paths[path]?.['options']?.responses ?? {})).toEqual(['204']);
      for (const method of ['post', 'put', 'patch', 'delete']) {
        expect(Object.keys(document.paths[path]?.[method]?.responses ?? {})).toEqual(['401', '405']);
      }
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
    '/api/%s/suggest documents GET and HEAD with 200, 304 and 401, OPTIONS with 204, and the suggestion rules',
    (id) => {
      const path = `/api/${id}/suggest`;
      for (const method of ['get', 'head']) {
        expect(Object.keys(document.paths[path]?.[method]?.responses ?? {}).sort()).toEqual(['200', '304', '401']);
      }
      expect(Object.keys(document.paths[path]?.['options']?.responses ?? {})).toEqual(['204']);
      const [search] = document.paths[path]?.parameters ?? [];
      const parameter = document.components.parameters[componentName(search ?? { $ref: '' })];
      expect(parameter).toMatchObject({ name: 'search', in: 'query' });
      for (const rule of ['first 25 records', 'starts with v', 'longer than 100 characters: []']) {
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
  expect(document.paths['/api/trees']?.['options']?.security).toEqual([]);
});

test('401 documents both messages and WWW-Authenticate', () => {
  const response = documented('/api/trees', 'get', 401);
  expect(Object.keys(response.headers ?? {})).toContain('WWW-Authenticate');
  for (const body of [TOKEN_REQUIRED_BODY, TOKEN_INVALID_BODY]) expectValid(response, JSON.parse(body), body);
  expect(bodyValidator(response)({ error: true, message: 'Something else.' })).toBe(false);
});

test('405 documents Allow and the method message', () => {
  const response = documented('/api/trees', 'post', 405);
  expect(Object.keys(response.headers ?? {})).toContain('Allow');
  expectValid(response, JSON.parse(METHOD_NOT_ALLOWED_BODY), 'method not allowed');
});

test('an unknown endpoint documents 404 with the list of endpoints', () => {
  expectValid(documented('/api/{path}', 'get', 404), JSON.parse(UNKNOWN_ENDPOINT_BODY), 'unknown endpoint');
});

test('OPTIONS documents 204 with the CORS headers', () => {
  const headers = Object.keys(documented('/api/trees', 'options', 204).headers ?? {});
  for (const name of [
    'Access-Control-Allow-Origin',
    'Access-Control-Allow-Methods',
    'Access-Control-Allow-Headers',
    'Access-Control-Max-Age',
  ]) {
    expect(headers).toContain(name);
  }
});

test('200 documents X-Data-Version, ETag, Cache-Control, Vary and Content-Encoding; 304 its ETag', () => {
  const headers = Object.keys(documented('/api/trees', 'get', 200).headers ?? {});
  for (const name of ['X-Data-Version', 'ETag', 'Cache-Control', 'Vary', 'Content-Encoding'])
    expect(headers).toContain(name);
  expect(Object.keys(documented('/api/trees', 'get', 304).headers ?? {})).toContain('ETag');
});

describe('the JSON Schema of each record kind', () => {
  const records = (kind: KindId) => (JSON.parse(readDist(`${API_DIR}/${kind}/index.json`)) as { data: Json[] }).data;
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
