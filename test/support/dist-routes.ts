// Reads a built dist/ the way a runtime does, for tests to compare against: a route of a
// scope's routing index -> its stored body -> the bytes of one part of it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bodyLayout, type BodyPart } from '../../src/contract/body-container.ts';
import { rootPath, shardPath, storedBodyPath } from '../../src/contract/paths.ts';
import { checkRoot, routeIn, shardOf, type IndexShard } from '../../src/contract/route-index.ts';
import { distDir } from './runtimes.ts';

/** The SHA-256 naming the stored body of a route (release undefined: the current data); undefined when absent. */
export function routeBody(route: string, release?: string, dir = distDir): string | undefined {
  const root = checkRoot(JSON.parse(readFileSync(join(dir, rootPath(release)), 'utf8')), rootPath(release));
  const shard = JSON.parse(readFileSync(join(dir, shardPath(release, shardOf(route, root))), 'utf8')) as IndexShard;
  return routeIn(shard, route);
}

/** The bytes of one part of a stored body. */
export function storedBytes(body: string, part: BodyPart = 'identity', dir = distDir): Buffer {
  const bytes = readFileSync(join(dir, storedBodyPath(body)));
  const [start, end] = bodyLayout(bytes, body)[part];
  return bytes.subarray(start, end);
}

/** The bytes of one part of a route's body; throws when the index has no such route. */
export function routeBytes(route: string, part: BodyPart = 'identity', release?: string, dir = distDir): Buffer {
  const body = routeBody(route, release, dir);
  if (body === undefined) throw new Error(`${route} is not a route of ${rootPath(release)}`);
  return storedBytes(body, part, dir);
}

/** The text of a route's body. */
export const routeText = (route: string, release?: string, dir = distDir) =>
  routeBytes(route, 'identity', release, dir).toString('utf8');

/** Every route of a scope's index with its stored body. */
export function scopeRoutes(release?: string, dir = distDir): Map<string, string> {
  const root = checkRoot(JSON.parse(readFileSync(join(dir, rootPath(release)), 'utf8')), rootPath(release));
  const routes = new Map<string, string>();
  for (let n = 0; n < root.shards; n++) {
    const shard = JSON.parse(readFileSync(join(dir, shardPath(release, n)), 'utf8')) as IndexShard;
    for (const [route, body] of Object.entries(shard)) routes.set(route, body);
  }
  return routes;
}
