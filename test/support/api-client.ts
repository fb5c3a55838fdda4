// Requests to a running API, checked against a build: which version answered, and whether
// every byte is that version's.
import { createHash } from 'node:crypto';
import { envelopePaths, requestFor, type Build } from './builds.ts';

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

/** The X-Data-Version of an answer (a key of Build.answers): its release's, for a release's answer. */
export function versionOf(answer: string, build: Build): string {
  const release = answer.split('@')[1];
  return build.manifest.releases.find((candidate) => candidate.id === release)?.version ?? build.manifest.version;
}

/**
 * Why `response` (to the request for `answer`) is not that answer of the build whose version
 * it names, or undefined when it is. A half-written or mixed build shows here.
 */
export function mismatch(answer: string, response: ApiResponse, builds: readonly Build[]): string | undefined {
  const build = builds.find((candidate) => versionOf(answer, candidate) === response.version);
  if (!build) return `${answer}: X-Data-Version ${response.version} is none of the builds`;
  const expected = build.answers.get(answer);
  if (!expected) return `${answer}: not an answer of version ${build.manifest.version}`;
  if (response.status !== requestFor(answer).status) return `${answer}: status ${response.status}`;
  const digest = createHash('sha256').update(response.body).digest('hex');
  return digest === expected ? undefined : `${answer}: body is not the answer of version ${build.manifest.version}`;
}

/** Requests every answer of `build` and returns what differs (an empty list: all of it, that version). */
export async function differencesFrom(origin: string, token: string, build: Build): Promise<string[]> {
  const differences: string[] = [];
  for (const path of envelopePaths(build)) {
    const response = await getApi(origin, requestFor(path).target, token);
    if (response.version !== versionOf(path, build)) differences.push(`${path}: version ${response.version}`);
    else {
      const problem = mismatch(path, response, [build]);
      if (problem) differences.push(problem);
    }
  }
  return differences;
}
