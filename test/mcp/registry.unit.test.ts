// server.json, the entry for the official MCP registry: valid against the registry's own schema
// (vendored in test/fixtures/mcp-registry/) and true to the client package it names.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';

type Json = Record<string, unknown>;
const readJson = (path: string): Json => JSON.parse(readFileSync(join(projectDir, path), 'utf8'));

const schema = readJson('test/fixtures/mcp-registry/server.schema.json');
const server = readJson('server.json');
const clientPackage = readJson('packages/client/package.json');

interface Input {
  value?: string;
  isRequired?: boolean;
  isSecret?: boolean;
  variables?: Record<string, Input>;
}
interface Argument extends Input {
  type: 'positional' | 'named';
  name?: string;
}
interface ServerJson {
  name: string;
  version: string;
  remotes: { type: string; url: string; variables?: Record<string, Input>; headers: (Input & { name: string })[] }[];
  packages: {
    registryType: string;
    identifier: string;
    version: string;
    runtimeHint?: string;
    transport: { type: string };
    packageArguments: Argument[];
  }[];
}
const entry = server as unknown as ServerJson;

/** The registry's schema in Ajv (draft-07, its default): `example` is an OpenAPI word the schema keeps. */
function registryValidator() {
  const ajv = new Ajv({ allErrors: true, strictTypes: false });
  ajv.addKeyword('example');
  // The one format the schema uses; ajv-formats is not a dependency of ours, so it is given here.
  ajv.addFormat('uri', (value: string) => URL.canParse(value));
  return ajv.compile(schema);
}
const validate = registryValidator();

describe('server.json against the registry schema', () => {
  test('it names the vendored schema version', () => {
    expect(schema['$id']).toBe('https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json');
    expect(server['$schema']).toBe(schema['$id']);
  });

  test('it is valid', () => {
    validate(server);
    expect(validate.errors ?? []).toEqual([]);
  });

  test('the schema refuses what the registry refuses (so the check above means something)', () => {
    const refused = (change: (copy: ServerJson) => void) => {
      const copy = structuredClone(entry);
      change(copy);
      return !validate(copy);
    };
    expect(refused((copy) => Object.assign(copy, { description: 'x'.repeat(101) }))).toBe(true);
    expect(refused((copy) => Object.assign(copy, { name: 'no-namespace' }))).toBe(true);
    expect(refused((copy) => Object.assign(copy.packages[0]!, { version: 'latest' }))).toBe(true);
    expect(refused((copy) => Object.assign(copy.remotes[0]!, { url: 'treefarm.example/mcp' }))).toBe(true);
  });
});

describe('server.json and the client package', () => {
  const [npm] = entry.packages;

  test("the server's and the package's versions are packages/client/package.json's", () => {
    expect(entry.version).toBe(clientPackage['version']);
    expect(npm?.version).toBe(clientPackage['version']);
  });

  test('the npm package is treefarm-data-client, which names this server (the registry checks mcpName)', () => {
    expect(npm?.registryType).toBe('npm');
    expect(npm?.identifier).toBe(clientPackage['name']);
    expect(clientPackage['mcpName']).toBe(entry.name);
  });

  test('its one bin is treefarm, in the published files, so npx runs it', () => {
    const bin = clientPackage['bin'] as Record<string, string>;
    expect(Object.keys(bin)).toEqual(['treefarm']);
    const files = clientPackage['files'] as string[];
    expect(files.some((folder) => bin['treefarm']?.replace(/^\.\//, '').startsWith(`${folder}/`))).toBe(true);
    expect(npm?.runtimeHint).toBe('npx');
  });

  test('it runs `treefarm mcp --bundle <file>` over stdio', () => {
    expect(npm?.transport).toEqual({ type: 'stdio' });
    const [command, bundle] = npm?.packageArguments ?? [];
    expect(command).toEqual({ type: 'positional', value: 'mcp' });
    expect(bundle).toMatchObject({ type: 'named', name: '--bundle', isRequired: true, format: 'filepath' });
    expect(npm?.packageArguments).toHaveLength(2);
  });
});

describe("server.json's remote", () => {
  const [remote] = entry.remotes;

  test("POST /mcp over streamable HTTP on the operator's site, a variable the operator fills in", () => {
    expect(remote?.type).toBe('streamable-http');
    expect(remote?.url).toBe('https://{site}/mcp');
    expect(remote?.variables?.['site']?.isRequired).toBe(true);
  });

  test('the Authorization header is a required secret: Bearer and the API token', () => {
    expect(remote?.headers).toHaveLength(1);
    const [header] = remote?.headers ?? [];
    expect(header).toMatchObject({ name: 'Authorization', isRequired: true, isSecret: true, value: 'Bearer {token}' });
    expect(header?.variables?.['token']).toMatchObject({ isRequired: true, isSecret: true });
  });
});
