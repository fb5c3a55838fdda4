// Hostile input, raw on the wire, against every runtime: malformed and odd request targets,
// encodings and traversal, duplicate and conflicting headers, absurd header values, HTTP/1.0
// and pipelining. Whatever the answer, it is never a 5xx, never API data without a valid
// token, never an API file on a static path, and never a file outside the built site. The
// Discord app is on (a key made here), so its endpoint takes the same abuse.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Latest, PUBLISHED_BUNDLES } from '../../src/contract/bundle-layout.ts';
import { DISCORD_MAX_BODY_BYTES } from '../../src/apps/discord/commands.ts';
import { DISCORD_PATH } from '../../src/apps/discord/bounds.ts';
import { API_DIR } from '../../src/contract/paths.ts';
import { discordKeys } from '../support/discord.ts';
import { openConnection, requestBytes, takeResponse, type RawRequest, type RawResponse } from '../support/http.ts';
import {
  contractRuntimeNames,
  distDir,
  startRuntime,
  runsInWorkerd,
  type Runtime,
  type RuntimeName,
} from '../support/runtimes.ts';
import { decodeBody } from '../support/builds.ts';
import { hasData, refusedByWorkerd, siteDigests } from '../support/site-bodies.ts';

const TOKEN = 'hostile-corpus-token';
const OTHER = 'not-a-configured-token';
/** A request with the valid token, sent as the body of one without. */
const SMUGGLED = `GET /api/trees HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${TOKEN}\r\n\r\n`;
const bearer = (token: string): [string, string] => ['Authorization', `Bearer ${token}`];

interface HostileCase {
  name: string;
  /** The bytes on the wire: one request or several pipelined. */
  bytes: Buffer;
  /** Per request: its method (to parse its response) and whether it may get API data. */
  requests: { method: string; apiData: boolean }[];
  /** Statuses the contract fixes, where it does. */
  statuses?: number[];
  /** Statuses fixed in one runtime only: what the Worker cannot see (workerd answers first). */
  statusesOn?: Partial<Record<RuntimeName, number[]>>;
}

/** Whether the target names the API by the URL standard (which both runtimes parse with). */
function namesApi(target: string): boolean {
  try {
    const { pathname } = target.startsWith('/') ? new URL(`http://localhost${target}`) : new URL(target);
    return pathname === `/${API_DIR}` || pathname.startsWith(`/${API_DIR}/`);
  } catch {
    return false;
  }
}

/**
 * Exactly one Authorization header, carrying the configured token; an empty one before it is
 * none (workerd drops it). (A parser may trim white space before the colon, as workerd does:
 * the token is still the client's own.)
 */
function carriesValidToken(headers: readonly [string, string][]): boolean {
  const values = headers.filter(([name]) => name.trim().toLowerCase() === 'authorization').map(([, value]) => value);
  while (values.length > 1 && values[0] === '') values.shift();
  return values.length === 1 && (values[0] === TOKEN || values[0] === `Bearer ${TOKEN}`);
}

/** Requests sent in one write; each but the last keeps the connection, the last closes it. */
function pipelined(name: string, requests: RawRequest[], statuses?: number[]): HostileCase {
  const bytes = requests.map((request, index) => {
    const headers = request.headers ?? [];
    const framed = headers.some(([field]) => field.toLowerCase() === 'connection');
    const connection: [string, string] = ['Connection', index === requests.length - 1 ? 'close' : 'keep-alive'];
    return requestBytes('localhost', { ...request, headers: framed ? headers : [...headers, connection] });
  });
  return {
    name,
    bytes: Buffer.concat(bytes),
    requests: requests.map(({ method = 'GET', target, headers = [] }) => ({
      method,
      apiData: carriesValidToken(headers) && namesApi(target),
    })),
    statuses,
  };
}

const one = (name: string, request: RawRequest, status?: number) =>
  pipelined(name, [request], status === undefined ? undefined : [status]);

/** Bytes as they are (latin1), for what requestBytes cannot write; `apiData` per expected response. */
function raw(name: string, text: string, requests: HostileCase['requests'], statuses?: number[]): HostileCase {
  return { name, bytes: Buffer.from(text, 'latin1'), requests, statuses };
}

const MCP_HEADERS: [string, string][] = [
  bearer(TOKEN),
  ['Content-Type', 'application/json'],
  ['Accept', 'application/json, text/event-stream'],
];
const mcpPost = (body: string): RawRequest => ({ method: 'POST', target: '/mcp', headers: MCP_HEADERS, body });
/** The Discord app's key, and another: the runtimes run with the first as DISCORD_PUBLIC_KEY. */
const [discordApp, discordOther] = await Promise.all([discordKeys(), discordKeys()]);
const STAMP = '1700000000';
/** A POST to the Discord app: its body signed by `signer` (over the timestamp and `signed`, the body by default). */
const discordPost = async (body: string, signer = discordApp, signed = body): Promise<RawRequest> => ({
  method: 'POST',
  target: DISCORD_PATH,
  headers: [
    ['X-Signature-Ed25519', await signer.sign(STAMP + signed)],
    ['X-Signature-Timestamp', STAMP],
    ['Content-Type', 'application/json'],
  ],
  body,
});
const PING = '{"type":1}';
const toolCallText = (text: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'suggest', arguments: { kind: 'trees', text } },
  });

/** A value short enough for a test name. */
const shown = (value: string) =>
  JSON.stringify(value.length > 48 ? `${value.slice(0, 40)}… (${value.length} characters)` : value);

/** Each target with a valid token and with none. */
function withAndWithoutToken(group: string, targets: string[]): HostileCase[] {
  return targets.flatMap((target) => [
    one(`${group}: ${shown(target)} with a valid token`, { target, headers: [bearer(TOKEN)] }),
    one(`${group}: ${shown(target)} without a token`, { target }),
  ]);
}

/** An offline bundle's name, as latest.json states it. */
const bundle = (JSON.parse(readFileSync(join(distDir, PUBLISHED_BUNDLES), 'utf8')) as Latest).bundles[0]?.name ?? '';

const long = (unit: string, length: number) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

const corpus: HostileCase[] = [
  ...withAndWithoutToken('invalid UTF-8', [
    '/api/trees?search=%ff%fe',
    '/api/trees?search=%c3%28',
    '/api/trees?search=%ed%a0%80',
    '/api/trees?search=%c0%ae%c0%ae',
    '/api/trees?search=\xff\xfe',
    '/api/tr%ffees',
    '/api/trees/\xc3\x28',
    '/%ff%fe%fd',
    '/\xff',
  ]),
  ...withAndWithoutToken('NUL', [
    '/api/trees?search=%00',
    '/api/trees?search=Oak%00Tree',
    '/api/trees%00',
    '/api/trees%00.json',
    '/api%00/trees/index.json',
    '/%00',
    '/index.html%00',
    '/api/trees?search=\x00',
  ]),
  one('NUL in the Authorization header', { target: '/api/trees', headers: [['Authorization', `Bearer ${TOKEN}\x00`]] }),
  ...withAndWithoutToken('encoded traversal', [
    '/%2e%2e/api/trees/index.json',
    '/.%2e/api/trees/index.json',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/..%2f..%2f..%2fetc%2fpasswd',
    '/%2e%2e%2fpackage.json',
    '/%2fapi%2ftrees%2findex.json',
    '/%5capi%5ctrees%5cindex.json',
    '/api%2ftrees%2findex.json',
    '/api%5ctrees%5cindex.json',
    '/%252e%252e/api/trees/index.json',
    '/%252fapi%252ftrees%252findex.json',
    '/%25252e%25252e%25252fapi/trees/index.json',
    '/x/..%2f..%2fapi/trees/index.json',
    '/downloads/..%2fapi/trees/index.json',
    '/API/trees/index.json',
    '/Api/Trees/index.json',
    '/%41%50%49/trees/index.json',
    '/%61pi/trees/index.json',
    '/\\api\\trees\\index.json',
    '/..\\..\\package.json',
    '/%2e%2e%5c%2e%2e%5cpackage.json',
    '/../package.json',
    '/manifest.json/../api/trees/index.json',
    '/api/trees/index.json',
    '/api/trees/level/1.json',
    '/api/trees/../../package.json',
  ]),
  // The edge resolves "api%2fx/.." as one segment and its dot segment (a static path); a file
  // server that decodes %2f first would drop only "x" and serve the API folder.
  ...withAndWithoutToken('a path the edge and a file server would resolve apart', [
    '/api%2fx/../trees/name/oaktree.json',
    '/api%2Fx/../bodies.pack',
    '/%61pi%2fx/../trees/index.json',
    '/api%2fx/%2e%2e/trees/index.json',
    '/api%5cx/../trees/index.json',
    '/%41PI%2Fx/%2E%2E/trees/index.json',
    '/api%2fx%2f..%2f/../trees/index.json',
    '/x/api%2ftrees%2findex.json/..',
  ]),
  ...withAndWithoutToken('odd request target', [
    'http://evil.example/api/trees',
    'http://evil.example/%2e%2e/api/trees/index.json',
    'HTTP://LOCALHOST/api/trees',
    'file:///etc/passwd',
    '*',
    'api/trees',
    '//api/trees',
    '///api/trees',
    '//evil.example/api/trees',
    '/./api/trees',
    '/api/./trees',
    '/api//trees',
    '/api/trees/..',
    '/api/trees/.',
    '/api/trees#fragment',
    '/api/trees?search=Oak&search=Maple',
    '/api/trees?%73earch=Oak%20Tree',
    '/api/trees?search=%',
    '/api/trees?search=%%%zz',
    '/api/trees?search',
    '/api/trees?=&&==',
    `/api/trees?search=${long('a', 8_000)}`,
    `/api/${long('a', 8_000)}`,
    `/${long('a/', 8_000)}`,
  ]),
  one('OPTIONS *', { method: 'OPTIONS', target: '*' }),
  one('duplicate Host headers', {
    target: '/api/trees',
    headers: [['Host', 'a.example'], ['Host', 'b.example'], bearer(TOKEN)],
  }),
  one('a garbage Host header', { target: '/api/trees', headers: [['Host', '\xff\xfe:99999'], bearer(TOKEN)] }),
  one('conflicting Content-Length headers', {
    target: '/api/trees',
    headers: [bearer(TOKEN), ['Content-Length', '1'], ['Content-Length', '2']],
    body: 'ab',
  }),
  one('Content-Length with Transfer-Encoding', {
    target: '/api/trees',
    headers: [bearer(TOKEN), ['Content-Length', '5'], ['Transfer-Encoding', 'chunked']],
    body: '0\r\n\r\n',
  }),
  one('an unknown Transfer-Encoding', {
    target: '/api/trees',
    headers: [bearer(TOKEN), ['Transfer-Encoding', 'gzip']],
    body: 'abc',
  }),
  one('an unknown Expect', { target: '/api/trees', headers: [bearer(TOKEN), ['Expect', 'something-else']] }),
  one(
    'two Authorization headers, the valid one first',
    { target: '/api/trees', headers: [bearer(TOKEN), bearer(OTHER)] },
    401,
  ),
  one(
    'two Authorization headers, the valid one last',
    { target: '/api/trees', headers: [bearer(OTHER), bearer(TOKEN)] },
    401,
  ),
  one(
    'two Authorization headers, the valid one and an empty one',
    { target: '/api/trees', headers: [bearer(TOKEN), ['Authorization', '']] },
    401,
  ),
  one(
    'two Authorization headers, the valid one twice',
    { target: '/api/trees', headers: [bearer(TOKEN), bearer(TOKEN)] },
    401,
  ),
  one(
    'two Authorization headers, the bare token twice',
    {
      target: '/api/trees',
      headers: [
        ['Authorization', TOKEN],
        ['Authorization', TOKEN],
      ],
    },
    401,
  ),
  // workerd hands the Worker no trace of an empty header line before another: an empty
  // Authorization before the valid one is no header at all, in both runtimes alike.
  one(
    'an empty Authorization header, then the valid one',
    { target: '/api/trees', headers: [['Authorization', ''], bearer(TOKEN)] },
    200,
  ),
  one(
    'a valid and an invalid token in one header',
    { target: '/api/trees', headers: [['Authorization', `Bearer ${TOKEN}, Bearer ${OTHER}`]] },
    401,
  ),
  one(
    'the token under another scheme',
    { target: '/api/trees', headers: [['Authorization', `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}`]] },
    401,
  ),
  one(
    'the token twice in one header',
    { target: '/api/trees', headers: [['Authorization', `Bearer ${TOKEN} ${TOKEN}`]] },
    401,
  ),
  one(
    'a token of 8000 characters',
    { target: '/api/trees', headers: [['Authorization', `Bearer ${long('t', 8_000)}`]] },
    401,
  ),
  one(
    'a token of bytes that are not UTF-8',
    { target: '/api/trees', headers: [['Authorization', 'Bearer \xff\xfe\xfd']] },
    401,
  ),
  one('a header name with a space, the valid token', { target: '/api/trees', headers: [['Authorization ', TOKEN]] }),
  one('a header name with a space, another token', { target: '/api/trees', headers: [['Authorization ', OTHER]] }),
  one('a header name with a space beside a valid Authorization', {
    target: '/api/trees',
    headers: [bearer(TOKEN), ['Authorization ', OTHER]],
  }),
  ...[
    long('x', 8_000),
    Array.from({ length: 1_000 }, () => 'gzip;q=0.5').join(', '),
    'br;q=2, gzip;q=-1',
    'br;q=NaN, gzip;q=1e3',
    '*',
    ',,,,,;;;;;====',
    'BR',
    'x-gzip, compress, deflate, zstd',
  ].map((value) =>
    one(
      `Accept-Encoding ${shown(value)}`,
      { target: '/api/trees', headers: [bearer(TOKEN), ['Accept-Encoding', value]] },
      200,
    ),
  ),
  one('a control character in Accept-Encoding', {
    target: '/api/trees',
    headers: [bearer(TOKEN), ['Accept-Encoding', 'br\x01']],
  }),
  // Refusing identity and offering nothing else: the contract sends identity; Cloudflare's front
  // line (and wrangler dev) answers 415.
  ...['*;q=0', 'identity;q=0, *;q=0'].map((value) =>
    one(`Accept-Encoding ${shown(value)}`, {
      target: '/api/trees',
      headers: [bearer(TOKEN), ['Accept-Encoding', value]],
    }),
  ),
  one(
    'two Accept-Encoding headers',
    { target: '/api/trees', headers: [bearer(TOKEN), ['Accept-Encoding', 'br'], ['Accept-Encoding', 'gzip']] },
    200,
  ),
  ...[
    long('x', 8_000),
    Array.from({ length: 1_000 }, (_, index) => `"${index}"`).join(', '),
    'W/',
    '"',
    '""',
    ', , ,',
    '\xff\xfe',
    'W/W/W/"x"',
  ].map((value) =>
    one(
      `If-None-Match ${shown(value)}`,
      { target: '/api/trees', headers: [bearer(TOKEN), ['If-None-Match', value]] },
      200,
    ),
  ),
  one('If-None-Match * without a token', { target: '/api/trees', headers: [['If-None-Match', '*']] }, 401),
  one('a Range on an API endpoint', { target: '/api/trees', headers: [bearer(TOKEN), ['Range', 'bytes=0-10']] }, 200),
  raw('HTTP/1.0 without Host', `GET /api/trees HTTP/1.0\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`, [
    { method: 'GET', apiData: true },
  ]),
  raw(
    'HTTP/1.0 with Host',
    `GET /api/trees HTTP/1.0\r\nHost: localhost\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`,
    [{ method: 'GET', apiData: true }],
    [200],
  ),
  raw(
    'HTTP/1.0 without a token',
    `GET /api/trees HTTP/1.0\r\nHost: localhost\r\n\r\n`,
    [{ method: 'GET', apiData: false }],
    [401],
  ),
  raw(
    'HTTP/1.0 HEAD',
    `HEAD /api/trees HTTP/1.0\r\nHost: localhost\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`,
    [{ method: 'HEAD', apiData: true }],
    [200],
  ),
  raw(
    'HTTP/1.0 keep-alive, pipelined',
    `GET /api/trees HTTP/1.0\r\nHost: localhost\r\nConnection: keep-alive\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n` +
      'GET /api/cutters HTTP/1.0\r\nHost: localhost\r\n\r\n',
    [
      { method: 'GET', apiData: true },
      { method: 'GET', apiData: false },
    ],
    [200, 401],
  ),
  raw('a request line without a version', `GET /api/trees\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`, [
    { method: 'GET', apiData: true },
  ]),
  raw(
    'HTTP/1.2',
    `GET /api/trees HTTP/1.2\r\nHost: localhost\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`,
    [{ method: 'GET', apiData: true }],
  ),
  raw('HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', [{ method: 'GET', apiData: false }]),
  raw(
    'a lower-case method',
    `get /api/trees HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`,
    [{ method: 'GET', apiData: true }],
  ),
  raw(
    'a method of 200 letters',
    `${long('X', 200)} /api/trees HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
    [{ method: 'GET', apiData: false }],
  ),
  ...['TRACE', 'DELETE', 'PROPFIND', 'PATCH'].flatMap((method) => [
    one(`${method} with a valid token`, { method, target: '/api/trees', headers: [bearer(TOKEN)] }, 405),
    one(`${method} without a token`, { method, target: '/api/trees' }, 401),
  ]),
  // Answered with a status line, not dropped (workerd answers CONNECT itself, before the Worker).
  {
    ...one('CONNECT', { method: 'CONNECT', target: 'evil.example:443', headers: [bearer(TOKEN)] }),
    statusesOn: { node: [405] },
  },
  {
    ...one('a method no parser knows', { method: 'XYZZY', target: '/', headers: [['Connection', 'close']] }),
    statusesOn: { node: [400] },
  },
  // The static site answers GET and HEAD; the edge decides this for both runtimes.
  ...['POST', 'PUT', 'DELETE', 'TRACE', 'PATCH', 'OPTIONS', 'PROPFIND'].flatMap((method) => [
    one(`${method} on the static site`, { method, target: '/', body: '' }, 405),
    one(`${method} on a static file`, { method, target: '/manifest.json', body: '' }, 405),
  ]),
  pipelined(
    'pipelined: 100 API requests, all answered to a client that reads',
    Array.from({ length: 100 }, () => ({ target: '/api/trees', headers: [bearer(TOKEN)] })),
    Array.from({ length: 100 }, () => 200),
  ),
  pipelined(
    'pipelined: 100 static pages, all answered to a client that reads',
    Array.from({ length: 100 }, () => ({ target: '/' })),
    Array.from({ length: 100 }, () => 200),
  ),
  pipelined(
    'pipelined: a valid token, no token, an invalid token',
    [
      { target: '/api/trees', headers: [bearer(TOKEN)] },
      { target: '/api/trees' },
      { target: '/api/cutters', headers: [bearer(OTHER)] },
    ],
    [200, 401, 401],
  ),
  pipelined(
    'pipelined: HEAD, conditional, OPTIONS and no token',
    [
      { method: 'HEAD', target: '/api/trees', headers: [bearer(TOKEN)] },
      { target: '/api/trees', headers: [bearer(TOKEN), ['If-None-Match', '*']] },
      { method: 'OPTIONS', target: '/api/trees' },
      { target: '/api/gifts?search=1' },
    ],
    [200, 304, 204, 401],
  ),
  // Every other spelling of a bundle's path is a 307 to it, in every runtime (the Node server's
  // file server once answered these itself, with its own ETag and ranges).
  ...[
    `/downloads//${bundle}`,
    `//downloads/${bundle}`,
    `/downloads%2f${bundle}`,
    `/downloads%2F${bundle}`,
    `/%64ownloads/${bundle}`,
    `/downloads/%2F${bundle}`,
    `/downloads/x%2f..%2f${bundle}`,
    `/downloads//${bundle}?x=%2f`,
  ].map((target) => one(`another spelling of a bundle's path: ${shown(target)}`, { target }, 307)),
  // A Range that is not one byte range (another unit, several, malformed), or on a HEAD: the whole file.
  ...['items=0-1', 'bytes=0-1,5-6', 'bytes=x-y', 'bytes=9-1', 'bytes=99999999-0'].flatMap((range) => [
    one(`Range ${range} on a static file`, { target: '/openapi.json', headers: [['Range', range]] }, 200),
    one(`Range ${range} on a bundle`, { target: `/downloads/${bundle}`, headers: [['Range', range]] }, 200),
  ]),
  one(
    'HEAD with a Range of a bundle',
    { method: 'HEAD', target: `/downloads/${bundle}`, headers: [['Range', 'bytes=0-1']] },
    200,
  ),
  one(
    'If-Match naming another ETag on a bundle',
    { target: `/downloads/${bundle}`, headers: [['If-Match', '"x"']] },
    412,
  ),
  pipelined(
    'pipelined: a GET with a body, then one without a token',
    [{ target: '/api/trees', headers: [bearer(TOKEN)], body: 'hello' }, { target: '/api/trees' }],
    [200, 401],
  ),
  pipelined('pipelined: a static page, then the API folder by a traversal', [
    { target: '/' },
    { target: '/%2e%2e/api/trees/index.json', headers: [bearer(TOKEN)] },
    { target: '/api%2ftrees%2findex.json', headers: [bearer(TOKEN)] },
  ]),
  raw(
    'pipelined: a valid request, then garbage',
    `GET /api/trees HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TOKEN}\r\n\r\nGARBAGE \x00\xff\r\n\r\n`,
    [
      { method: 'GET', apiData: true },
      { method: 'GET', apiData: false },
    ],
  ),
  // /mcp takes one JSON-RPC message by POST: every fault below is a JSON-RPC error naming it.
  one('/mcp: a body over its bound (16 KiB)', mcpPost(toolCallText('x'.repeat(17_000))), 413),
  one('/mcp: malformed JSON', mcpPost('{"jsonrpc":"2.0","id":1,"method":'), 400),
  one('/mcp: JSON nested 5000 deep', mcpPost(`{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`), 400),
  one('/mcp: a batch', mcpPost(`[${toolCallText('oa')},${toolCallText('ce')}]`), 400),
  one('/mcp: a string, not a message', mcpPost('"tools/list"'), 400),
  one('/mcp: params that are a string', mcpPost('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}'), 400),
  one("/mcp: a body past the server's own bound on bodies (64 KiB)", mcpPost(toolCallText('x'.repeat(70_000))), 413),
  one('/mcp: the wrong content type', { ...mcpPost(toolCallText('oa')), headers: [bearer(TOKEN)] }, 415),
  one('/mcp: no token', { method: 'POST', target: '/mcp', body: toolCallText('oa') }, 401),
  one('/mcp: another token', { ...mcpPost(toolCallText('oa')), headers: [bearer(OTHER)] }, 401),
  one('/mcp: GET, asking for an event stream', { target: '/mcp', headers: [...MCP_HEADERS] }, 405),
  one('/mcp: DELETE', { method: 'DELETE', target: '/mcp', headers: [...MCP_HEADERS] }, 405),
  // The Discord app checks the signature before it reads anything else; no token is asked for.
  one('/discord/interactions: no signature', { method: 'POST', target: DISCORD_PATH, body: PING }, 401),
  one(
    '/discord/interactions: a token but no signature',
    { method: 'POST', target: DISCORD_PATH, headers: [bearer(TOKEN)], body: PING },
    401,
  ),
  one(
    '/discord/interactions: a signature that is no hex',
    {
      ...(await discordPost(PING)),
      headers: [
        ['X-Signature-Ed25519', 'g'.repeat(128)],
        ['X-Signature-Timestamp', STAMP],
      ],
    },
    401,
  ),
  one('/discord/interactions: a signature by another key', await discordPost(PING, discordOther), 401),
  one('/discord/interactions: a signed PING with another body', await discordPost('{"type":2}', discordApp, PING), 401),
  one(
    '/discord/interactions: a signed body over its bound (32 KiB)',
    await discordPost(`{"type":1,"x":"${'x'.repeat(DISCORD_MAX_BODY_BYTES)}"}`),
    413,
  ),
  one(
    "/discord/interactions: a body past the server's own bound (64 KiB)",
    await discordPost(`{"type":1,"x":"${'x'.repeat(70_000)}"}`),
    413,
  ),
  one('/discord/interactions: signed, not JSON', await discordPost('{"type":'), 400),
  // Node trusts loopback to forward in Forwarded here (the Worker's client is CF-Connecting-IP):
  // what a client writes there is parsed on every request, and the origin for /mcp and Discord.
  ...[
    ['an unclosed quote before the hop', 'for=127.0.0.12;x=", for=127.0.0.44'],
    ['quotes and backslashes, 4,005 characters', `for="${'\\"'.repeat(2_000)}`],
    ['a scheme and host that make no origin', 'for=127.0.0.44;proto="javascript";host="a/b@c:99999"'],
    ['a bracket that never closes', 'for="[2001:db8::1;host="[::1"'],
  ].flatMap(([what = '', forwarded = '']) => [
    one(
      `Forwarded, ${what}: the API`,
      { target: '/api/trees', headers: [bearer(TOKEN), ['Forwarded', forwarded]] },
      200,
    ),
    // A message the app refuses (its answer is no file of the site), once its URL is made.
    one(
      `Forwarded, ${what}: /mcp`,
      { ...mcpPost('{"jsonrpc":'), headers: [...MCP_HEADERS, ['Forwarded', forwarded]] },
      400,
    ),
  ]),
  one(
    '/discord/interactions: signed, not JSON, with a Forwarded host that is no authority',
    await discordPost('{"type":').then((post) => ({
      ...post,
      headers: [...(post.headers ?? []), ['Forwarded', 'for=127.0.0.44;host="[::1"']],
    })),
    400,
  ),
  one('/discord/interactions: signed, a string', await discordPost('"PING"'), 400),
  one('/discord/interactions: GET', { target: DISCORD_PATH }, 405),
  one(
    "/discord/interactions/: a POST below it is the site's",
    { method: 'POST', target: `${DISCORD_PATH}/`, body: PING },
    405,
  ),
  raw(
    'a request without a token whose body is a request with one',
    `GET /api/trees HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n` +
      `Content-Length: ${SMUGGLED.length}\r\n\r\n${SMUGGLED}`,
    [{ method: 'GET', apiData: false }],
    [401],
  ),
];

describe.each(contractRuntimeNames)('%s runtime', (runtimeName) => {
  let runtime: Runtime;
  let digests: ReturnType<typeof siteDigests>;
  beforeAll(async () => {
    digests = siteDigests();
    runtime = await startRuntime(runtimeName, {
      tokens: [TOKEN],
      discordPublicKey: discordApp.publicKeyHex,
      trustProxy: 'loopback',
      trustProxyHeader: 'forwarded',
    });
  });
  afterAll(() => runtime?.close());

  function problems(hostile: HostileCase, responses: RawResponse[]): string[] {
    const found: string[] = [];
    for (const [index, response] of responses.entries()) {
      const apiData = hostile.requests[index]?.apiData ?? false;
      const where = `response ${index + 1} (${response.status})`;
      if (response.status >= 500 && !(runsInWorkerd(runtimeName) && refusedByWorkerd(response)))
        found.push(`${where}: a 5xx`);
      const body = decodeBody(response.body, response.headers['content-encoding']);
      const digest = createHash('sha256').update(body).digest('hex');
      if (digests.api.has(digest) && !apiData)
        found.push(`${where}: an API file, without a valid token or on a static path`);
      if (hasData(body) && !apiData) found.push(`${where}: API data, without a valid token or on a static path`);
      if (response.status === 200 && body.length > 0 && !digests.api.has(digest) && !digests.other.has(digest)) {
        found.push(
          `${where}: a body that is no file of the built site: ` +
            JSON.stringify(body.toString('latin1').slice(0, 120)),
        );
      }
    }
    return found;
  }

  test.each(corpus.map((hostile) => [hostile.name, hostile] as const))('%s', async (_name, hostile) => {
    const responses = await exchange(runtime.url, hostile);
    expect(problems(hostile, responses)).toEqual([]);
    const statuses = hostile.statusesOn?.[runtimeName] ?? hostile.statuses;
    if (statuses) expect(responses.map((response) => response.status)).toEqual(statuses);
  });
});

/**
 * Sends the case's bytes and reads a response per request, stopping early when the server
 * closes the connection (a request it refused may end the exchange).
 */
async function exchange(origin: string, hostile: HostileCase): Promise<RawResponse[]> {
  const connection = await openConnection(origin);
  const responses: RawResponse[] = [];
  try {
    connection.write(hostile.bytes);
    for (const { method } of hostile.requests) {
      const response = await connection.read<RawResponse | undefined>((received, ended) =>
        ended && received.length === 0 ? { value: undefined, used: 0 } : takeResponse(received, method, ended),
      );
      if (!response) break;
      responses.push(response);
    }
  } finally {
    connection.close();
  }
  return responses;
}
