import { once } from 'node:events';
import { rmSync, writeFileSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { fileMethods } from '../../src/server/static-files.ts';
import { temporaryFolder } from '../support/temporary-folders.ts';

const root = temporaryFolder('static-files-');
const page = join(root, 'page.html');
writeFileSync(page, '<p>A page</p>\n');
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A response as node:http leaves it when its client disconnects: destroyed, its 'close' emitted. */
function closeAsTheClientLeft(response: ServerResponse): void {
  response.destroy();
  response.emit('close');
}

const newResponse = () => new ServerResponse(new IncomingMessage(new Socket()));

test('a file stream is closed when its response closes', async () => {
  const response = newResponse();
  const stream = fileMethods(root, new Set(), response).createReadStream(page);
  closeAsTheClientLeft(response);
  await once(stream, 'close');
  expect(stream.closed).toBe(true);
});

test('a file asked for after its client left is closed at once, as its response will not close again', async () => {
  const response = newResponse();
  closeAsTheClientLeft(response);
  const stream = fileMethods(root, new Set(), response).createReadStream(page);
  expect(stream.destroyed).toBe(true);
  await once(stream, 'close');
  expect(stream.closed).toBe(true);
});
