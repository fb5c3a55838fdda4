// The client's own record types (src/client/records.ts, plain so the package needs no zod)
// are the records the API serves: equal to the zod schemas' types, and to the types that
// openapi-typescript generates from dist/openapi.json. Drift in either fails here.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { expect, expectTypeOf, test } from 'vitest';
import { projectDir } from '../../src/cli/project-dir.ts';
import { OPENAPI_FILE } from '../../src/contract/build-files.ts';
import type * as client from '../../src/client/records.ts';
import { kindIds, kinds, type RecordsByKind } from '../../src/schema/kinds.ts';
import { distDir } from '../support/runtimes.ts';

const runFile = promisify(execFile);

test('the kind registry defines one kind per id of kind-ids.ts, in that order', () => {
  expect(kinds.map((kind) => kind.id)).toEqual([...kindIds]);
});

test('the client record types equal the types of the zod schemas (checked by tsc)', () => {
  expectTypeOf<client.RecordsByKind>().toEqualTypeOf<RecordsByKind>();
  expectTypeOf<client.Tree>().toEqualTypeOf<RecordsByKind['trees']>();
  expectTypeOf<client.Gift>().toEqualTypeOf<RecordsByKind['gifts']>();
  expectTypeOf<client.Plot>().not.toEqualTypeOf<RecordsByKind['storages']>();
});

test('the client record types equal the types openapi-typescript generates from dist/openapi.json', async () => {
  const folder = join(projectDir, 'test-output', 'openapi-types');
  mkdirSync(folder, { recursive: true });
  const generated = astToString(await openapiTS(new URL(`file://${join(distDir, OPENAPI_FILE)}`)));
  writeFileSync(join(folder, 'openapi.ts'), generated);
  const records = join(projectDir, 'src', 'client', 'records.ts');
  const names = ['Tree', 'Cutter', 'Gift', 'Plot', 'Storage', 'Vehicle'];
  writeFileSync(
    join(folder, 'check.ts'),
    `import type { components } from './openapi.ts';
import type * as client from ${JSON.stringify(records)};
type Schemas = components['schemas'];
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
${names.map((name) => `export const same${name}: Equal<Schemas['${name}'], client.${name}> = true;`).join('\n')}
// The check has teeth: a record missing a field is not equal.
// @ts-expect-error
export const missingField: Equal<Schemas['Tree'], Omit<client.Tree, 'funfact'>> = true;
`,
  );
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const options = ['--noEmit', '--strict', '--module', 'nodenext', '--allowImportingTsExtensions', '--skipLibCheck'];
  await expect(runFile(process.execPath, [tsc, ...options, join(folder, 'check.ts')])).resolves.toBeDefined();
}, 120_000);
