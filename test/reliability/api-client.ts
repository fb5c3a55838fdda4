// Requests to a running API, checked against a build: which version answered, and whether
// every byte is that version's.
import { createHash } from 'node:crypto';
import type { Manifest } from '../../src/schema/manifest.ts';
import { answerFiles, requestFor, type Build } from './builds.ts';

export interface ApiResponse {
  status: number;
  version: string | null;
  body: Buffer;
}

export async function getApi(origin: string, target: string, token: string): Promise<ApiResponse> {
  const response = await fetch(`${origin}${target}`, {
    headers: { Authorization: `Bearer ${token}`, 'Accept-Encoding': 'identity' },
  });
  return {
    status: response.status,
    version: response.headers.get('x-data-version'),
    body: Buffer.from(await response.arrayBuffer()),
  };
}

/**
 * Why `response` (to the request for API file `path`) is not that file of the build whose
 * version it names, or undefined when it is. A half-written or mixed build shows here.
 */
export function mismatch(path: string, response: ApiResponse, manifests: readonly Manifest[]): string | undefined {
  const manifest = manifests.find((candidate) => candidate.version === response.version);
  if (!manifest) return `${path}: X-Data-Version ${response.version} is none of the builds`;
  const expected = manifest.files[path];
  if (!expected) return `${path}: not a file of version ${manifest.version}`;
  if (response.status !== requestFor(path).status) return `${path}: status ${response.status}`;
  const digest = createHash('sha256').update(response.body).digest('hex');
  return digest === expected.sha256 ? undefined : `${path}: body is not the file of version ${manifest.version}`;
}

/** Requests every API file of `build` and returns what differs (an empty list: all of it, that version). */
export async function differencesFrom(origin: string, token: string, build: Build): Promise<string[]> {
  const differences: string[] = [];
  for (const path of answerFiles(build.manifest)) {
    const response = await getApi(origin, requestFor(path).target, token);
    if (response.version !== build.manifest.version) differences.push(`${path}: version ${response.version}`);
    else {
      const problem = mismatch(path, response, [build.manifest]);
      if (problem) differences.push(problem);
    }
  }
  return differences;
}
