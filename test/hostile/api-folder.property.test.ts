// The API folder is reachable only through the token check, whatever a path spells: for random
// spellings of paths to API files (any character percent-encoded in either case or twice, /
// and \ and their encodings as separators, dot segments plain and encoded, a detour through a
// segment and back), no answer without a token carries an API file or API data, in either
// runtime.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PACK_FILE } from '../../src/contract/build-files.ts';
import { listRoute, nameRoute, rootPath, shardPath, storedBodyPath } from '../../src/contract/paths.ts';
import { routeBody } from '../support/dist-routes.ts';
import { decodeBody } from '../support/builds.ts';
import { rawRequest, type RawResponse } from '../support/http.ts';
import { contractRuntimeNames, runsInWorkerd, startRuntime, type Runtime } from '../support/runtimes.ts';
import { hasData, refusedByWorkerd, siteDigests } from '../support/site-bodies.ts';

/** API files of the build to aim at: stored bodies, the routing index, the pack the Node server reads. */
const API_FILES = [
  storedBodyPath(routeBody(listRoute('trees')) ?? ''),
  storedBodyPath(routeBody(nameRoute('trees', 'oaktree')) ?? ''),
  rootPath(undefined),
  shardPath(undefined, 0),
  PACK_FILE,
];
const RUNS = { node: 300, worker: 150, 'worker-r2': 150 };

/** How one character is written: as it is, %XX, %xx, or encoded twice (%25XX). */
const spellings = ['as is', 'upper', 'lower', 'twice'] as const;
function spellCharacter(character: string, how: (typeof spellings)[number]): string {
  const hex = character.charCodeAt(0).toString(16).padStart(2, '0');
  if (how === 'upper') return `%${hex.toUpperCase()}`;
  if (how === 'lower') return `%${hex}`;
  if (how === 'twice') return `%25${hex.toUpperCase()}`;
  return character;
}

const separator = fc.constantFrom('/', '\\', '%2f', '%2F', '%5c', '%5C', '//', '/./', '/%2e/');
/** A detour that a path resolver undoes: into a segment (maybe with an encoded separator) and back out. */
const detour = fc.constantFrom(
  '',
  '/x/..',
  '/x/%2e%2e',
  '/api%2fx/..',
  '/api%2Fx/%2E%2E',
  '/%61pi%5cx/..',
  '/./',
  '/a/b/../..',
);

/** A spelling of `/api/...` for one API file: the detour, then each segment spelled and separated. */
const spelledApiPath = fc
  .record({
    file: fc.constantFrom(...API_FILES),
    detour,
    separators: fc.array(separator, { minLength: 8, maxLength: 8 }),
    characters: fc.array(fc.constantFrom(...spellings), { minLength: 64, maxLength: 64 }),
  })
  .map(({ file, detour, separators, characters }) => {
    let index = 0;
    const segments = file
      .split('/')
      .map((segment) =>
        [...segment].map((character) => spellCharacter(character, characters[index++ % 64] ?? 'as is')).join(''),
      );
    const path = segments.reduce(
      (joined, segment, at) => `${joined}${at === 0 ? '/' : (separators[at] ?? '/')}${segment}`,
      '',
    );
    return `${detour}${path}`;
  });

describe.each(contractRuntimeNames)('%s runtime', (runtimeName) => {
  let runtime: Runtime;
  let digests: ReturnType<typeof siteDigests>;
  beforeAll(async () => {
    digests = siteDigests();
    runtime = await startRuntime(runtimeName, { tokens: ['api-folder-token'] });
  });
  afterAll(() => runtime?.close());

  /** What is wrong with an answer to a request without a token. */
  function problem(response: RawResponse | undefined): string | undefined {
    if (!response) return undefined;
    if (response.status >= 500 && !(runsInWorkerd(runtimeName) && refusedByWorkerd(response))) return 'a 5xx';
    const body = decodeBody(response.body, response.headers['content-encoding']);
    if (digests.api.has(createHash('sha256').update(body).digest('hex'))) return 'an API file';
    if (hasData(body)) return 'API data';
    return undefined;
  }

  test('no spelling of a path into the API folder gets an API body without a token', async () => {
    await fc.assert(
      fc.asyncProperty(spelledApiPath, async (target) => {
        // workerd may close a connection whose target it cannot parse; the Node server always answers.
        const response = await rawRequest(runtime.url, { target }).catch((error: unknown) => {
          if (runsInWorkerd(runtimeName)) return undefined;
          throw error;
        });
        expect({ target, status: response?.status, problem: problem(response) }).toEqual({
          target,
          status: response?.status,
          problem: undefined,
        });
      }),
      {
        numRuns: RUNS[runtimeName],
        examples: [
          ['/api%2fx/../trees/name/oaktree.json'],
          ['/api%2Fx/../bodies.pack'],
          ['/%61pi%2fx/../trees/index.json'],
          ['/api%2fx/%2e%2e/trees/index.json'],
        ],
      },
    );
  }, 300_000);
});
