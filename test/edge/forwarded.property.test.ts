// Whatever a client writes into Forwarded before the trusted hop's element, the client counted is
// the one that hop names, and the scheme and host are the ones it forwards (src/edge/forwarded.ts,
// issue 55 finding 1). The client's text is any header value (HTAB, SP, VCHAR, obs-text), biased
// towards the grammar's own characters; the hop's element is one a proxy writes (nginx's
// `for=$remote_addr`, or with proto= and host=, an IPv6 node quoted and bracketed), on the same
// line or on a line of its own (which a runtime hands over joined by ", ").
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { forwardedClient, forwardedOrigin } from '../../src/edge/forwarded.ts';
import { trustedProxies } from '../../src/edge/trusted-proxies.ts';

// PROPERTY_RUNS: fewer runs where each run is slow (the mutation run sets it).
const RUNS = { numRuns: Number(process.env['PROPERTY_RUNS'] ?? 2_000) };

const trusted = trustedProxies('loopback');
if (typeof trusted === 'string') throw new Error(trusted);
/** nginx, the one trusted proxy, connects from here. */
const PEER = '127.0.0.1';

/** Any character a header value may hold, the grammar's own weighted up. */
const valueCharacter = fc.oneof(
  { arbitrary: fc.constantFrom('"', '\\', ',', ';', '=', ' ', '\t', '[', ']', ':'), weight: 3 },
  { arbitrary: fc.constantFrom('for', 'proto', 'host', 'by', '127.0.0.12', '_x'), weight: 2 },
  { arbitrary: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)), weight: 2 },
  { arbitrary: fc.integer({ min: 0x80, max: 0xff }).map((code) => String.fromCharCode(code)), weight: 1 },
);
const clientText = fc.array(valueCharacter, { maxLength: 40 }).map((parts) => parts.join(''));

/** An address outside the trusted loopback range, as the hop forwards it (the node) and as counted. */
const clientAddress = fc.oneof(
  fc
    .tuple(fc.integer({ min: 1, max: 126 }), fc.nat(255), fc.nat(255), fc.nat(255))
    .map((octets) => ({ node: octets.join('.'), address: octets.join('.') })),
  fc
    .array(fc.integer({ min: 0, max: 0xffff }), { minLength: 6, maxLength: 6 })
    .map((groups) => `2001:db8:${groups.map((group) => group.toString(16)).join(':')}`)
    .map((address) => ({ node: `"[${address}]"`, address })),
);

const hop = fc.record({
  client: clientAddress,
  origin: fc.option(fc.record({ proto: fc.constantFrom('http', 'https'), host: fc.domain() })),
  ownLine: fc.boolean(),
});

describe('whatever a client writes before the trusted hop', () => {
  test("the client counted is the hop's, and its scheme and host are the hop's", () => {
    fc.assert(
      fc.property(clientText, hop, (text, { client, origin, ownLine }) => {
        const element = `for=${client.node}${origin ? `;proto=${origin.proto};host=${origin.host}` : ''}`;
        // nginx's "$http_forwarded, for=..." and a line of its own both reach the server as this.
        const value = ownLine && text === '' ? element : `${text}, ${element}`;
        const request = { header: (name: string) => (name === 'forwarded' ? value : null) };
        expect(forwardedClient(trusted, 'forwarded', PEER, request)).toBe(client.address);
        expect(forwardedOrigin(trusted, 'forwarded', PEER, request)).toEqual({
          proto: origin?.proto,
          host: origin?.host,
        });
      }),
      RUNS,
    );
  });
});
