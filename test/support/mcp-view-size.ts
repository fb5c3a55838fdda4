// What an MCP Apps view's page may weigh (issue 64), for bench/mcp-views.ts, which reports it, and
// test/mcp/views.test.ts, which holds each view to it. The floor is the SDK's own browser bundle of
// the App class (@modelcontextprotocol/ext-apps/app-with-deps: the App, the SDK's protocol and zod
// with its locales, 130 KB gzipped), which every view holds once; our own code and styles come on top.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';

/** The goal: a view's page, gzipped, is at most the SDK's bundle gzipped plus this much of our own. */
export const OWN_SHARE_GZIPPED = 16_000;

/** Bytes gzipped at level 9. */
export const gzippedSize = (text: string): number => gzipSync(text, { level: 9 }).length;

/** The SDK's bundle of the App class, as installed: the file its public `app-with-deps` export names. */
export const sdkAppBundle = (): string =>
  readFileSync(createRequire(import.meta.url).resolve('@modelcontextprotocol/ext-apps/app-with-deps'), 'utf8');
