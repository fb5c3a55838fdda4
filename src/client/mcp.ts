// `treefarm mcp --bundle <file>`: the MCP tools (src/apps/mcp) over stdio, for a desktop
// assistant without a network. The bundle is verified first (against the published SHA-256 of
// the archive when given one, and every file against its manifest), then answered through the
// same resolver as the API, so each tool answers offline exactly as /mcp does online for the
// bundle's data. Stdout carries only JSON-RPC; what a person should read goes to stderr.
import { readFile } from 'node:fs/promises';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
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
  const served = serveStdio(() => createMcpServer(index, origin));
  err(`treefarm: serving the MCP tools over stdio from ${path} (data version ${version}), until stdin closes`);
  await ended;
  await served.close();
}
