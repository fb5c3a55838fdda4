// A content/ folder of any size for benchmarks: the real cutters, gifts, plots, storages and
// vehicles, and `treeCount` synthetic trees written as YAML files like the real ones.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kinds } from '../../src/schema/kinds.ts';

export const realContentDir = fileURLToPath(new URL('../../content/', import.meta.url));

/** The game has 106 tree levels; synthetic levels past it reuse the curve from its start. */
const CURVE_LEVELS = 106;
const REGIONS = [
  'Africa',
  'Asia',
  'Europe',
  'North America',
  'South America',
  'Oceania',
  'Europe, Asia',
  'North America, South America',
];
const FACTS = [
  "is a made-up species planted only by the benchmark, so every figure of it follows the game's pricing curve.",
  'grows in no forest at all: it exists to give the build as many trees as a large content folder would hold.',
  'has the plainest wood of any tree, and the benchmark likes it that way.',
];

/** A synthetic tree as YAML, with figures from the curves of test/fixtures/published/README.md. */
export function syntheticTreeYaml(level: number): string {
  const curve = ((level - 1) % CURVE_LEVELS) + 1;
  const name = `Synthetic Tree ${level}`;
  return [
    `name: ${name}`,
    `funfact: >-\n  ${name} ${FACTS[level % FACTS.length]}`,
    `plantingRegion: ${REGIONS[level % REGIONS.length]}`,
    `level: ${level}`,
    `growthTime: ${Math.floor(60 * 1.03 ** (curve - 1))}`,
    `logCount: ${Math.floor(119 * 1.05 ** (curve - 1))}`,
    `logValue: ${Math.floor(6.99 * 1.15 ** (curve - 1))}`,
    `saplingCost: ${Math.floor(60 * 1.15 ** curve)}`,
    `upgradeCost: ${curve === 1 ? 0 : Math.floor(10000 * 1.15 ** (curve - 1))}`,
    '',
  ].join('\n');
}

/** Writes content/ below `dir`: `treeCount` synthetic trees and the real other kinds. Returns content/. */
export function writeSyntheticContent(dir: string, treeCount: number): string {
  const contentDir = join(dir, 'content');
  for (const kind of kinds) {
    if (kind.id !== 'trees') cpSync(join(realContentDir, kind.id), join(contentDir, kind.id), { recursive: true });
  }
  const treesDir = join(contentDir, 'trees');
  mkdirSync(treesDir, { recursive: true });
  for (let level = 1; level <= treeCount; level++)
    writeFileSync(join(treesDir, `synthetic-tree-${level}.yaml`), syntheticTreeYaml(level));
  return contentDir;
}
