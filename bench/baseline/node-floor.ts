// The floor: a bare node:http server doing the least a server of this API can do. Per
// request it parses the URL, compares the token (constant time) and writes a preloaded
// buffer with the same headers as this project's server. Run by bench/serve.ts: HOST,
// PORT, API_TOKENS (one token) and BODIES (JSON: search value or "" for none -> file path).
import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { CACHE_FOUND, COMMON_HEADERS, JSON_CONTENT_TYPE } from '../../src/contract/headers.ts';

const token = Buffer.from(process.env.API_TOKENS ?? '');
const version = process.env.DATA_VERSION ?? '';
const answers = new Map(
  Object.entries(JSON.parse(process.env.BODIES ?? '{}') as Record<string, { file: string; etag: string }>).map(
    ([search, { file, etag }]) => {
      const body = readFileSync(file);
      const headers = {
        ...COMMON_HEADERS,
        'X-Data-Version': version,
        'Cache-Control': CACHE_FOUND,
        'Content-Type': JSON_CONTENT_TYPE,
        Vary: 'Accept-Encoding',
        ETag: etag,
        'Content-Length': body.length,
      };
      return [search, { body, headers }];
    },
  ),
);

createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const presented = Buffer.from((request.headers.authorization ?? '').replace(/^bearer\s+/i, ''));
  if (presented.length !== token.length || !timingSafeEqual(presented, token)) {
    response.writeHead(401, { 'Content-Length': 0 }).end();
    return;
  }
  const answer = answers.get(url.searchParams.get('search') ?? '');
  if (!answer) {
    response.writeHead(404, { 'Content-Length': 0 }).end();
    return;
  }
  response.writeHead(200, answer.headers).end(answer.body);
}).listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1', () => console.log('ready'));
