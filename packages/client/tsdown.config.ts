// Builds the package from src/client: ESM JavaScript and .d.ts in packages/client/dist.
// The online entry, the offline one and the economics formulas share their common modules (the
// error classes), so
// `instanceof` holds across them; the CLI is a Node program of its own.
import { defineConfig } from 'tsdown';

const source = '../../src/client';
/** The declaration build is slow by nature; its timing notice says nothing to act on. */
const checks = { pluginTimings: false };

export default defineConfig([
  {
    entry: {
      index: `${source}/entry-online.ts`,
      offline: `${source}/entry-offline.ts`,
      economics: `${source}/entry-economics.ts`,
    },
    platform: 'neutral',
    format: 'esm',
    // The offline entry reads a bundle from a path with node:fs, imported only when given one.
    deps: { neverBundle: [/^node:/] },
    fixedExtension: false,
    dts: true,
    clean: true,
    checks,
  },
  {
    entry: { cli: `${source}/cli/bin.ts` },
    platform: 'node',
    format: 'esm',
    fixedExtension: false,
    dts: false,
    clean: false,
    checks,
  },
]);
