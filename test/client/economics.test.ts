// The client's economics(): every tree through the formulas of src/contract/economics.ts, from
// the records either client gives, in-process (the CLI's tests run the packed bin). The
// records come from the built bundle; each call is recorded to show what is fetched.
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { loadContent } from '../../src/build/content.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { growthSpeedOf, NORMAL_GROWTH_SPEED, treeEconomics } from '../../src/contract/economics.ts';
import { bundleFileName } from '../../src/contract/bundle-layout.ts';
import { economics } from '../../src/client/economics.ts';
import { type BundleClient, openBundle } from '../../src/client/index.ts';
import type { CallOptions } from '../../src/client/request.ts';
import type { Search } from '../../src/client/types.ts';
import { distDir } from '../support/runtimes.ts';

let bundle: BundleClient;
beforeAll(async () => {
  const { version } = loadContent(join(projectDir, 'content'));
  bundle = await openBundle(join(distDir, 'downloads', bundleFileName(version, 'zip')));
});

/** The bundle's trees and plots, with every call recorded: the kind, the search and the options. */
function recorded() {
  const calls: [string, Search, CallOptions | undefined][] = [];
  const data = {
    trees: (search?: Search, options?: CallOptions) => {
      calls.push(['trees', search, options]);
      return bundle.trees(search, options);
    },
    plots: (search?: Search, options?: CallOptions) => {
      calls.push(['plots', search, options]);
      return bundle.plots(search, options);
    },
  };
  return { data, calls };
}

describe('economics()', () => {
  test('without a plot: every tree on a normal plot, and no plot is fetched', async () => {
    const { data, calls } = recorded();
    expect(await economics(data)).toEqual(treeEconomics(await bundle.trees(), NORMAL_GROWTH_SPEED));
    expect(calls.map(([kind, search]) => [kind, search])).toEqual([['trees', null]]);
  });

  test("with a plot level: that plot's growth speed applies", async () => {
    const plots = await bundle.plots();
    const fastest = plots.reduce((best, plot) => (plot.growthSpeed > best.growthSpeed ? plot : best));
    expect(fastest.growthSpeed).not.toBe(NORMAL_GROWTH_SPEED);
    const expected = treeEconomics(await bundle.trees(), growthSpeedOf(plots, fastest.level));
    expect(await economics(recorded().data, { plot: fastest.level })).toEqual(expected);
  });

  test('a plot level no plot has is a RangeError naming the levels', async () => {
    await expect(economics(recorded().data, { plot: 99 })).rejects.toThrow(
      new RangeError('no plot has level 99: the levels are 1 to 8'),
    );
  });

  test('the call options (an abort signal) reach every fetch; the plot is not one of them', async () => {
    const { data, calls } = recorded();
    const signal = new AbortController().signal;
    await economics(data, { plot: 1, signal });
    expect(calls).toEqual([
      ['trees', null, { signal }],
      ['plots', null, { signal }],
    ]);
  });
});
