// TRUST_PROXY refuses a list whose ranges together cover a whole family, however it is cut up
// (src/edge/trusted-proxies.ts, issue 62 finding 4): the generator cuts a family (every IPv4
// address, spelled as IPv4 or IPv4-mapped IPv6, or every public IPv6 address, 2000::/3) into
// blocks by halving at random, shuffles them among entries outside that family, and the list is
// refused naming exactly the blocks; without any one block it is accepted. Each block is a
// range TRUST_PROXY takes, narrower than the family, so every input is one the rule judges.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { trustedProxies } from '../../src/edge/trusted-proxies.ts';

// PROPERTY_RUNS: fewer runs where each run is slow (the mutation run sets it).
const RUNS = { numRuns: Number(process.env['PROPERTY_RUNS'] ?? 500) };

/** A block of a family: its first `bits` bits after the family's prefix, as a number. */
interface Block {
  start: bigint;
  bits: number;
}

/** Halving decisions read in order (true: halve this block) make the blocks, at most MAX_BITS deep. */
const MAX_BITS = 12;
function blocksOf(decisions: readonly boolean[]): Block[] {
  let next = 0;
  const cut = (start: bigint, bits: number): Block[] => {
    // The family itself is always halved: one entry holding it whole is the single-entry rule's.
    const halve = bits === 0 || (bits < MAX_BITS && (decisions[next++] ?? false));
    if (!halve) return [{ start, bits }];
    return [...cut(start << 1n, bits + 1), ...cut((start << 1n) | 1n, bits + 1)];
  };
  return cut(0n, 0);
}

const ipv4 = (value: bigint) => [24n, 16n, 8n, 0n].map((shift) => (value >> shift) & 0xffn).join('.');
const ipv6 = (value: bigint) =>
  Array.from({ length: 8 }, (_, group) => ((value >> BigInt(112 - 16 * group)) & 0xffffn).toString(16)).join(':');

/** Each family: its name in the refusal, a block's spelling, and entries wholly outside it. */
const FAMILIES = [
  {
    name: 'every IPv4 address',
    spell: ({ start, bits }: Block) => `${ipv4(start << BigInt(32 - bits))}/${bits}`,
    outside: ['fd00::/8', '2001:db8::1', 'fc00::/7', '::1'],
  },
  {
    name: 'every IPv4 address',
    spell: ({ start, bits }: Block) => `::ffff:${ipv4(start << BigInt(32 - bits))}/${96 + bits}`,
    outside: ['fd00::/8', '2001:db8::/32', '::1'],
  },
  {
    name: 'every public IPv6 address (2000::/3)',
    spell: ({ start, bits }: Block) => `${ipv6((1n << 125n) | (start << BigInt(125 - bits)))}/${3 + bits}`,
    outside: ['loopback', 'private', '10.0.0.1', '::ffff:192.0.2.0/120'],
  },
];

/** A family cut into blocks, shuffled among entries outside it: each entry's text and whether it is a block. */
const cutFamily = fc
  .record({
    family: fc.constantFrom(...FAMILIES),
    decisions: fc.array(fc.boolean(), { maxLength: 40 }),
    extras: fc.array(fc.nat(3), { maxLength: 4 }),
    order: fc.array(fc.nat(), { maxLength: 64 }),
  })
  .map(({ family, decisions, extras, order }) => {
    const entries = [
      ...blocksOf(decisions).map((block) => ({ text: family.spell(block), block: true })),
      ...extras.map((at) => ({ text: family.outside[at % family.outside.length] ?? '::1', block: false })),
    ];
    // A shuffle by the generated order (sorting by it keeps every input one the property takes).
    const keyed = entries.map((entry, at) => ({ entry, key: order[at] ?? at }));
    return { family, entries: keyed.sort((one, other) => one.key - other.key).map(({ entry }) => entry) };
  });

/** "1, 3 and 4" of the places of the blocks among the entries. */
function placesOfBlocks(entries: readonly { block: boolean }[]): string {
  const places = entries.flatMap((entry, at) => (entry.block ? [String(at + 1)] : []));
  return `${places.slice(0, -1).join(', ')} and ${places.at(-1)}`;
}

describe('a family cut into ranges', () => {
  test('is refused, naming the blocks (and no other entry) and the family they cover together', () => {
    fc.assert(
      fc.property(cutFamily, ({ family, entries }) => {
        const blocks = entries.filter((entry) => entry.block).map((entry) => entry.text);
        expect(trustedProxies(entries.map((entry) => entry.text).join(','))).toBe(
          `entries ${placesOfBlocks(entries)} (${blocks.join(', ')}) together cover ${family.name}, so every ` +
            "client could name its own address: list the proxies' own addresses or ranges (write every-peer " +
            'alone to trust every peer on purpose)',
        );
      }),
      RUNS,
    );
  });

  test('without any one of its blocks is accepted', () => {
    fc.assert(
      fc.property(cutFamily, fc.nat(), ({ entries }, pick) => {
        const blockPlaces = entries.flatMap((entry, at) => (entry.block ? [at] : []));
        const left = blockPlaces[pick % blockPlaces.length];
        const rest = entries.filter((_, at) => at !== left).map((entry) => entry.text);
        expect(trustedProxies(rest.join(',')), rest.join(',')).toHaveProperty('ranges');
      }),
      RUNS,
    );
  });
});
