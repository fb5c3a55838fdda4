// The image's files agree with what they stand beside: the Dockerfile's Node is the lock
// file's, compose's nginx runs docs/deploy.md's block, and compose trusts the proxy it runs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { parse } from 'yaml';
import { projectDir } from '../../src/cli/project-dir.ts';

const read = (path: string) => readFileSync(join(projectDir, path), 'utf8');
/** A build argument's default in the Dockerfile. */
const dockerfileArgument = (name: string) => new RegExp(`^ARG ${name}=(\\S+)$`, 'm').exec(read('Dockerfile'))?.[1];

test("the Dockerfile's NODE_VERSION is the lock file's node: the image runs the Node the tests run", () => {
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { version?: string }> };
  expect(dockerfileArgument('NODE_VERSION')).toBe(lock.packages['node_modules/node']?.version);
});

test("compose's nginx configuration is docs/deploy.md's block, proxying to the compose service", () => {
  const documented = /```nginx\n([\s\S]*?)```/.exec(read('docs/deploy.md'))?.[1];
  expect(read('deploy/nginx.conf')).toBe(documented?.replace('http://127.0.0.1:4321', 'http://treefarm:4321'));
});

interface Compose {
  services: Record<
    string,
    { environment?: Record<string, string>; volumes?: string[]; stop_grace_period?: string; ports?: string[] }
  >;
}

test('compose trusts the nginx it runs, publishes only nginx, and stops the server after its drain', () => {
  const { services } = parse(read('compose.yaml')) as Compose;
  expect(services.treefarm?.environment?.TRUST_PROXY).toBe('private');
  expect(services.treefarm?.ports).toBeUndefined();
  expect(services.nginx?.volumes).toContain('./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro');
  // The drain (10 s) and the access log's flush (10 s) fit in the grace before SIGKILL.
  expect(services.treefarm?.stop_grace_period).toBe('30s');
});
