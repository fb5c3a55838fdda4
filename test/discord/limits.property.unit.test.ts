// Every message the Discord app sends is within Discord's limits, whatever the content: records
// with long names and long fun facts, releases with long notes and many changes, any message at
// all through the one fitting (src/apps/discord/limits.ts), and every message pings no one. The
// limits are those Discord's documentation states (test/support/discord-limits.ts).
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { RecordPage } from '../../src/contract/record-pages.ts';
import { choiceOf } from '../../src/apps/discord/autocomplete.ts';
import { releaseMessage } from '../../src/apps/discord/changes.ts';
import { echo } from '../../src/apps/discord/echo.ts';
import { fitChoices, fitMessage, fitText } from '../../src/apps/discord/limits.ts';
import { recordsMessage } from '../../src/apps/discord/records.ts';
import type { ApiRecord } from '../../src/schema/kinds.ts';
import type { ReleaseSummary } from '../../src/schema/releases.ts';
import { overLimits } from '../support/discord-limits.ts';

/** Text of any length up to `most`, of any characters (emoji and newlines among them). */
const text = (most: number) =>
  fc.oneof(
    fc.string({ maxLength: most, unit: 'grapheme' }),
    fc.string({ maxLength: most, unit: fc.constantFrom('a', ' ', '\n', '🌳', '*', '@') }),
  );
const longText = (least: number, most: number) =>
  fc.string({ minLength: least, maxLength: most, unit: fc.constantFrom('a', 'b', ' ', '\n', '🌲') });
const treeName = fc.oneof(
  text(30).filter((name) => name.trim() !== ''),
  longText(200, 400),
);

const tree = (name: string, level: number, funfact: string): ApiRecord => ({
  name,
  funfact,
  plantingRegion: 'Europe',
  level,
  growthTime: 447,
  logCount: 3284,
  logValue: 93741,
  saplingCost: 925341,
  upgradeCost: 134107523,
});

const CONTEXT = { index: undefined as never, origin: 'https://treefarm.example' };

describe('every message is within Discord’s limits', () => {
  test('a record command or step, whatever the names and fun facts', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(treeName, longText(0, 5000)), { minLength: 1, maxLength: 14 }),
        fc.nat(),
        fc.integer({ min: 1, max: 12 }),
        (named, at, count) => {
          const all = named.map(([name, funfact], level) => tree(name, level + 1, funfact));
          const pages: RecordPage[] = all.map((record, level) => [
            record.level,
            'name' in record ? record.name : null,
            `t${level}`,
          ]);
          const first = at % all.length;
          const positions = Array.from({ length: Math.min(count, all.length - first) }, (_, offset) => first + offset);
          const message = recordsMessage(CONTEXT, 'trees', { all, version: '50f442909b29bed2', pages }, positions);
          expect(overLimits(fitMessage(message))).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });

  test('/changes, whatever the notes and however many records a release changes', () => {
    const changed = fc.record({
      kind: fc.constant('trees' as const),
      name: treeName,
      level: fc.integer({ min: 1, max: 999 }),
    });
    const release = fc.record({
      notes: longText(0, 6000),
      added: fc.array(changed, { maxLength: 200 }),
      removed: fc.array(changed, { maxLength: 50 }),
      changed: fc.array(changed, { maxLength: 120 }),
    });
    fc.assert(
      fc.property(fc.array(release, { minLength: 1, maxLength: 3 }), fc.nat(), (made, at) => {
        const all: ReleaseSummary[] = made.map(({ notes, added, removed, changed: edited }, number) => ({
          id: `2026-11-${String(22 - number).padStart(2, '0')}`,
          date: `2026-11-${String(22 - number).padStart(2, '0')}`,
          version: '50f442909b29bed2',
          notes,
          counts: { trees: 0, cutters: 0, gifts: 0, plots: 0, storages: 0, vehicles: 0 },
          changes: {
            added,
            removed,
            changed: edited.map((record) => ({
              ...record,
              fields: { logValue: { from: 6, to: 7 }, name: { from: 'a', to: record.name } },
            })),
          },
        }));
        const message = releaseMessage(CONTEXT, all, at % all.length, '50f442909b29bed2');
        expect(overLimits(fitMessage(message))).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  test('any message at all, once fitted', () => {
    const field = fc.record({ name: text(400), value: fc.oneof(text(200), longText(900, 3000)) });
    const embed = fc.record(
      {
        title: fc.oneof(text(50), longText(200, 600)),
        description: fc.oneof(text(100), longText(3000, 7000)),
        fields: fc.array(field, { maxLength: 40 }),
        footer: fc.record({ text: fc.oneof(text(40), longText(2000, 2500)) }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(text(100), longText(1900, 4000)), fc.array(embed, { maxLength: 14 }), (content, embeds) => {
        expect(overLimits(fitMessage({ content, embeds }))).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  test('autocomplete: 25 choices at most, each label and value of at most 100 characters', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(treeName, fc.integer({ min: 1, max: 999 })), { maxLength: 40 }),
        text(20),
        (named, typed) => {
          const choices = fitChoices(
            named.map(([name, level]) => choiceOf({ name, level }, [level, name, 'x', [name]], typed)),
          );
          expect(choices.length).toBeLessThanOrEqual(25);
          for (const choice of choices) {
            expect(choice.name.length).toBeLessThanOrEqual(100);
            expect(choice.value.length).toBeLessThanOrEqual(100);
          }
        },
      ),
    );
  });
});

describe('trimming says what it left out', () => {
  test('a list cut at whole lines ends "… and N more", N the lines left out', () => {
    const lines = Array.from({ length: 300 }, (_, at) => `Record number ${at}`);
    const cut = fitText(lines.join('\n'), 1024).split('\n');
    const kept = cut.length - 1;
    expect(cut.slice(0, kept)).toEqual(lines.slice(0, kept));
    expect(cut.at(-1)).toBe(`… and ${300 - kept} more`);
  });

  test('more than ten embeds: the first ten, and the content says how many more', () => {
    const data = fitMessage({ embeds: Array.from({ length: 13 }, (_, at) => ({ title: `Embed ${at}` })) });
    expect(data.embeds).toHaveLength(10);
    expect(data.content).toBe('… and 3 more');
  });

  test('a message within every limit is sent as it is, pinging no one', () => {
    const embeds = [{ title: 'Oak Tree', description: 'Oaks', fields: [{ name: 'Level', value: '69' }] }];
    expect(fitMessage({ content: 'hi', embeds })).toEqual({ content: 'hi', embeds, allowed_mentions: { parse: [] } });
  });
});

describe('what the user typed is shown as text', () => {
  test('a mention, @everyone and a masked link stay in a code span, which Discord shows literally', () => {
    expect(echo('<@123> @everyone [x](https://evil.example)')).toBe('`<@123> @everyone [x](https://evil.example)`');
  });
  test('a backtick cannot end the span early', () => {
    expect(echo('a`b``c')).not.toMatch(/^`[^`]*`.+/);
    expect(echo('a`b').slice(1, -1)).not.toContain('`');
  });
  test('control, direction and zero-width characters are removed, and the text is one line', () => {
    expect(echo('oak\u202e eert\u200b\nkao\u2066x\u0000')).toBe('`oak eert kao x`');
  });
  test('an echo is 100 characters at most', () => {
    expect([...echo('x'.repeat(500)).slice(1, -1)]).toHaveLength(100);
  });
  test('nothing typed is said as such', () => {
    expect(echo(' \u200b ')).toBe('(nothing)');
  });
});
