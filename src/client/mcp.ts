// `treefarm mcp --bundle <file>`: the MCP tools (src/apps/mcp) over stdio, for a desktop
// assistant without a network. The bundle is verified first (against the published SHA-256 of
// the archive when given one, and every file against its manifest), then answered through the
// same resolver as the API, so each tool answers offline exactly as /mcp does online for the
// bundle's data. Stdout carries only JSON-RPC; what a person should read goes to stderr.
import { readFile } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { faultAnswer, type MessageFault, readMessage } from '../apps/mcp/messages.ts';
import { createMcpServer } from '../apps/mcp/server.ts';
import { bundleIndex, verifyBundle } from './bundle.ts';

/**
 * Serves the bundle's tools, resources and prompts on this process's stdin and stdout until
 * stdin ends, in the era the client opens with (2026-07-28, or 2025 after initialize); wiki
 * links point to `origin` (the site the bundle came from).
 */
export async function serveBundleOverStdio(
  path: string,
  err: (text: string) => void,
  origin: string,
  sha256?: string,
): Promise<void> {
  const { version, files } = await verifyBundle(new Uint8Array(await readFile(path)), { sha256 });
  const index = bundleIndex(files);
  const ended = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  const lines = process.stdin.pipe(
    checkedLines((fault) => process.stdout.write(`${JSON.stringify(faultAnswer(fault))}\n`)),
  );
  const served = serveStdio(() => createMcpServer(index, origin), { transport: new StdioServerTransport(lines) });
  err(`treefarm: serving the MCP tools over stdio from ${path} (data version ${version}), until stdin closes`);
  await ended;
  await served.close();
}

/**
 * The lines of stdin, each read as /mcp reads a body (src/apps/mcp/messages.ts): a message
 * this server answers passes on to the SDK's transport, any other is answered with the JSON-RPC
 * error that names its fault, which the transport would drop unanswered (its client waiting for
 * ever). Blank lines are dropped. A line past the transport's bound passes on whole from there,
 * for the transport to refuse as it does.
 */
function checkedLines(answer: (fault: MessageFault) => void): Transform {
  let parts: Buffer[] = [];
  let size = 0;
  let overflowed = false;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (overflowed) return done(null, chunk);
      let start = 0;
      for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
        const line = Buffer.concat([...parts, chunk.subarray(start, end + 1)]);
        [parts, size, start] = [[], 0, end + 1];
        const text = line.toString('utf8').trim();
        if (text === '') continue;
        const read = readMessage(text);
        if ('fault' in read) answer(read.fault);
        else this.push(line);
      }
      parts.push(chunk.subarray(start));
      size += chunk.length - start;
      overflowed = size > STDIO_DEFAULT_MAX_BUFFER_SIZE;
      if (overflowed) this.push(Buffer.concat(parts));
      done();
    },
  });
}
