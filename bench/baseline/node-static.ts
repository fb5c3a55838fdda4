// The static ceiling when nginx is not installed: a bare node:http server that answers every
// request with one preloaded buffer. PORT and BODY_FILE come from the environment.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const body = readFileSync(process.env.BODY_FILE ?? '');
createServer((_request, response) => {
  response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
  response.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
