// The MCP Apps views as a host finds them on /mcp (the browser's side: apps.test.ts): the tools
// that name a view in `_meta.ui` (and the older flat key), each view a `ui://` resource of the
// extension's type whose declared CSP allows no outside origin, its page self-contained under
// its own policy, and the same page in both eras; each page holds the SDK's own bundle of the App
// class once and little of ours beside it.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CLIENT_KINDS, type ClientKind, httpClient, type McpClient } from '../support/mcp.ts';
import { gzippedSize, OWN_SHARE_GZIPPED, sdkAppBundle } from '../support/mcp-view-size.ts';
import { type Runtime, startRuntime } from '../support/runtimes.ts';

const TOKEN = 'mcp-views-token';
const VIEWS = { planner: ['plan'], record: ['find_record', 'tree_economics'] } as const;
const MCP_APP_TYPE = 'text/html;profile=mcp-app';

let runtime: Runtime;
const clients = new Map<ClientKind, McpClient>();

beforeAll(async () => {
  runtime = await startRuntime('node', { tokens: [TOKEN] });
  for (const kind of CLIENT_KINDS) clients.set(kind, await httpClient(runtime.url, TOKEN, kind));
});
afterAll(async () => {
  await Promise.all([...clients.values()].map((client) => client.close()));
  await runtime?.close();
});

const clientOf = (kind: ClientKind) => clients.get(kind) as McpClient;

describe.each(CLIENT_KINDS)('the %s client', (kind) => {
  test('plan names the planner view, find_record and tree_economics the record one; no other tool', async () => {
    const { tools } = await clientOf(kind).listTools();
    const named = Object.fromEntries(tools.map((tool) => [tool.name, (tool as { _meta?: unknown })._meta]));
    const expected: Record<string, unknown> = { list_records: undefined, suggest: undefined, changes: undefined };
    for (const [view, names] of Object.entries(VIEWS))
      for (const name of names) {
        const uri = `ui://treefarm/${view}.html`;
        expected[name] = { ui: { resourceUri: uri }, 'ui/resourceUri': uri };
      }
    expect(named).toEqual(expected);
  });

  test.each(Object.keys(VIEWS))('the %s view is an MCP App page whose CSP allows no outside origin', async (view) => {
    const uri = `ui://treefarm/${view}.html`;
    const { contents } = await clientOf(kind).readResource({ uri });
    expect(contents).toHaveLength(1);
    const [page] = contents as { uri: string; mimeType: string; text: string; _meta: unknown }[];
    expect(page).toMatchObject({ uri, mimeType: MCP_APP_TYPE });
    expect(page?._meta).toEqual({
      ui: {
        csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
        prefersBorder: true,
      },
    });
    const html = page?.text ?? '';
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-/);
    // One inline script and one inline style: no file of its own to load (its CSP would refuse one).
    expect({ scripts: html.match(/<script\b[^>]*>/g), links: html.match(/<link\b/g) }).toEqual({
      scripts: ['<script type="module">'],
      links: null,
    });
  });
});

test('every era reads the same view pages', async () => {
  const pages = await Promise.all(
    CLIENT_KINDS.map(
      async (kind) => (await clientOf(kind).readResource({ uri: 'ui://treefarm/record.html' })).contents,
    ),
  );
  for (const each of pages) expect(each).toEqual(pages[0]);
});

const pageOf = async (view: string) => {
  const { contents } = await clientOf('modern').readResource({ uri: `ui://treefarm/${view}.html` });
  return (contents[0] as { text: string }).text;
};

/** A string each copy of the library holds once: zod's object schema's name, the protocol's timeout error. */
const ONE_A_COPY = { zod: '"$ZodObject"', "the SDK's protocol": 'Request timed out' };
const timesIn = (text: string, marker: string) => text.split(marker).length - 1;

test.each(Object.keys(VIEWS))("the %s page holds one copy of zod and of the SDK's protocol", async (view) => {
  const [page, sdk] = [await pageOf(view), sdkAppBundle()];
  for (const [library, marker] of Object.entries(ONE_A_COPY)) {
    expect(timesIn(sdk, marker), `${marker} no longer marks one copy of ${library}`).toBe(1);
    // A second copy comes of a view importing zod, or the SDK's own modules, at run time rather than as types.
    expect(timesIn(page, marker), `copies of ${library}`).toBe(1);
  }
});

test.each(Object.keys(VIEWS))(
  "the %s page is the SDK's bundled App and at most 16 KB gzipped of ours",
  async (view) => {
    const ours = gzippedSize(await pageOf(view)) - gzippedSize(sdkAppBundle());
    expect(ours).toBeLessThanOrEqual(OWN_SHARE_GZIPPED);
  },
);
