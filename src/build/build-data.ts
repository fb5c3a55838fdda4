// What one build knows: the validated content and the data releases beside it, read and
// checked once (a ContentError names every problem), then handed on explicitly: site.ts
// loads it before Astro starts and gives it to the integration (integration.ts), which
// passes it to the content collections and the pages as virtual modules.
import { dirname, resolve } from 'node:path';
import { type Content, loadContent } from './content.ts';
import { loadReleases, type Release } from './releases.ts';

export interface BuildData {
  /** The content/ folder read, absolute. */
  contentDir: string;
  content: Content;
  /** The data releases beside content/ (releases/), checked, oldest first. */
  releases: Release[];
}

/** How a build gets its data; a test passes its own to count the loads or to feed a fixture. */
export type BuildDataLoader = (contentDir: string) => BuildData;

/** Reads and validates content/ and the releases beside it. */
export const loadBuildData: BuildDataLoader = (contentDir) => {
  const absolute = resolve(contentDir);
  return { contentDir: absolute, content: loadContent(absolute), releases: loadReleases(dirname(absolute)) };
};
