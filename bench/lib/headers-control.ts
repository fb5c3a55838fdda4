// The control of bench/instructions.ts: node:http alone, answering every request with the
// header list (CONTROL_HEADERS, JSON: name, value, name, value, ...) and body (CONTROL_BODY, a
// file) of the server's own answer, through writeHead as src/server/node-adapter.ts writes them.
// Two of these, without and with the rate limit's two headers, give node:http's own work on
// those headers, which the rate limit's budget leaves out.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const headers = JSON.parse(process.env.CONTROL_HEADERS ?? '[]') as string[];
const body = readFileSync(process.env.CONTROL_BODY ?? '');
const server = createServer((_request, response) => {
  response.writeHead(200, headers);
  response.end(body);
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
