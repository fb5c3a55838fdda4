// The scopes of the prebuilt API (src/build/api.ts): the current data and each release, each
// with the routes of its own records. A scope may reuse the suggestion index of the scope
// before it (making it is most of a scope's cost), and must answer as if made alone.
import { afterEach, beforeEach, expect, test } from 'vitest';
import { kindRoutes, publishedScopes } from '../../src/build/api.ts';
import type { ApiRoute } from '../../src/build/api-route.ts';
import { loadContent } from '../../src/build/content.ts';
import { makeRelease } from '../../src/build/make-release.ts';
import { loadReleases, withFormerNames } from '../../src/build/releases.ts';
import { suggestRoutesKeepingLast } from '../../src/build/suggest-index.ts';
import { kindById } from '../../src/schema/kinds.ts';
import { minimalProject, type TempProject } from '../fixtures/minimal-content.ts';

let project: TempProject;
beforeEach(() => {
  project = minimalProject();
});
afterEach(() => project.remove());

const DAY = new Date('2026-12-01T10:00:00Z');
const asPairs = (routes: Iterable<ApiRoute>) => [...routes].map(({ route, body }) => [route, body]);

test("each release's routes are those of its own records, whatever the scopes before it", () => {
  makeRelease(project.root, 'First.', { now: DAY });
  project.patch('trees/oak-tree.yaml', { logValue: 7 });
  makeRelease(project.root, 'A figure.', { now: DAY });
  project.patch('cutters/knife.yaml', { name: 'Blade' });
  makeRelease(project.root, 'A rename.', { now: DAY });
  project.patch('trees/oak-tree.yaml', { level: 40 });
  const releases = loadReleases(project.root);
  const [, ...releaseScopes] = publishedScopes(loadContent(project.contentDir), releases);
  expect(releaseScopes.map((scope) => asPairs(scope.routes))).toEqual(
    releases.map((release, index) =>
      asPairs(
        kindRoutes(
          withFormerNames(
            release.content,
            releases.slice(0, index).map((earlier) => earlier.content),
          ),
        ),
      ),
    ),
  );
});

test('the suggestion index is made again only when a level, name or key changed', () => {
  const trees = kindById('trees');
  if (!trees) throw new Error('no trees kind');
  const suggestions = suggestRoutesKeepingLast();
  const first = suggestions(trees, loadContent(project.contentDir).entries.trees);
  project.patch('trees/oak-tree.yaml', { logValue: 7 });
  expect(suggestions(trees, loadContent(project.contentDir).entries.trees)).toBe(first);
  project.patch('trees/oak-tree.yaml', { name: 'Great Oak' });
  const renamed = suggestions(trees, loadContent(project.contentDir).entries.trees);
  expect(renamed).not.toBe(first);
  expect(asPairs(renamed)).not.toEqual(asPairs(first));
  project.patch('trees/oak-tree.yaml', { level: 40 });
  expect(suggestions(trees, loadContent(project.contentDir).entries.trees)).not.toBe(renamed);
});
