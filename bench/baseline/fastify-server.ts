// The baseline: a dynamic API server shaped like the service this project replaces. Data in
// memory, and per request: the token checked, the search matched, the envelope serialized.
// Run as a child process by bench/serve.ts: HOST, PORT, API_TOKENS and CONTENT_DIR from the env.
import Fastify from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { loadContent } from '../../src/build/content.ts';
import { kinds } from '../../src/schema/kinds.ts';

const content = loadContent(process.env.CONTENT_DIR ?? 'content');
const tokenDigests = (process.env.API_TOKENS ?? '')
  .split(',')
  .map((token) => createHash('sha256').update(token).digest());
const app = Fastify({ logger: false });

for (const kind of kinds) {
  const entries = content.entries[kind.id];
  app.get(`/api/${kind.id}`, async (request, reply) => {
    const header = request.headers.authorization ?? '';
    const token = header.replace(/^bearer\s+/i, '');
    const digest = createHash('sha256').update(token).digest();
    if (!tokenDigests.some((known) => timingSafeEqual(known, digest))) {
      return reply.code(401).send({ error: true, message: 'The provided API token is not valid.' });
    }
    const search = (request.query as Record<string, string | undefined>).search?.trim().toLowerCase();
    const data =
      !search || search === 'null'
        ? entries.map((entry) => entry.record)
        : /^\d+$/.test(search)
          ? entries.filter((entry) => entry.data.level === Number(search)).map((entry) => entry.record)
          : entries
              .filter((entry) => 'name' in entry.data && entry.data.name.toLowerCase() === search)
              .map((entry) => entry.record);
    if (data.length === 0)
      return reply.code(404).send({ error: true, message: `The requested ${kind.noun} could not be found.` });
    return { error: false, message: `The requested ${kind.noun} data was successfully found.`, data };
  });
}

await app.listen({ port: Number(process.env.PORT), host: process.env.HOST ?? '127.0.0.1' });
console.log('ready');
