// The image's files agree with what they stand beside: the Dockerfile's Node is the lock
// file's and each tarball it fetches is checked against a pin, compose's nginx runs
// docs/deploy.md's block, and compose trusts the proxy it runs; what podman-compose drops, the
// docs give by hand.
import { readdirSync, readFileSync } from 'node:fs';
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
    {
      image?: string;
      environment?: Record<string, string>;
      volumes?: string[];
      stop_grace_period?: string;
      ports?: string[];
    }
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

test('every tarball the build stage ADDs is checked against a pinned sha512 integrity before it is unpacked', () => {
  const dockerfile = read('Dockerfile');
  const added = Array.from(dockerfile.matchAll(/^ADD https:\/\/\S+ (\S+)$/gm), (match) => match[1] ?? '');
  expect(added).toEqual(['/tmp/node.tgz', '/tmp/npm.tgz']);
  for (const file of added) {
    const checked = new RegExp(`check-integrity\\.sh ${file} "\\$(\\w+)"`, 'g');
    const pins = Array.from(dockerfile.matchAll(checked), (match) => match[1] ?? '');
    expect({ file, pinned: pins.length > 0 }).toEqual({ file, pinned: true });
    for (const pin of pins) expect(dockerfileArgument(pin)).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
    expect(dockerfile.indexOf(`check-integrity.sh ${file}`)).toBeLessThan(dockerfile.indexOf(`tar -xzf ${file}`));
  }
});

test("docs/deploy.md gives podman-compose, which drops stop_grace_period, compose's grace by hand", () => {
  const { services } = parse(read('compose.yaml')) as Compose;
  const grace = /^(\d+)s$/.exec(services.treefarm?.stop_grace_period ?? '')?.[1];
  expect(/^podman-compose down -t (\d+)/m.exec(read('docs/deploy.md'))?.[1]).toBe(grace);
});

test("without a registry, compose's nginx is the image deploy/nginx.Containerfile makes, through NGINX_IMAGE", () => {
  const { services } = parse(read('compose.yaml')) as Compose;
  expect(services.nginx?.image).toMatch(/^\$\{NGINX_IMAGE:-nginx:[\d.]+\}$/);
  const doc = read('docs/deploy.md');
  const tag = /^podman build -t (\S+) -f deploy\/nginx\.Containerfile deploy/m.exec(doc)?.[1];
  expect(/NGINX_IMAGE=(\S+)/.exec(doc)?.[1]).toBe(`localhost/${tag}`);
});

test("the docs' examples hold the token in TREEFARM_TOKEN, the README's name and the treefarm command's", () => {
  const pages = ['README.md', ...readdirSync(join(projectDir, 'docs')).map((page) => `docs/${page}`)];
  expect(pages.filter((page) => /\$\{?TOKEN\b/.test(read(page)))).toEqual([]);
  expect(read('README.md')).toContain('$TREEFARM_TOKEN');
});
