// What both views do in the host's frame: connect to the host (the App class of
// @modelcontextprotocol/ext-apps, over postMessage), follow its theme (light or dark, as the
// wiki's own colour schemes: wiki.css's tokens under data-theme), and show a line when a call fails.
// The App comes from the SDK's own browser bundle (app-with-deps), which holds the SDK's protocol and
// zod: the page holds one copy of each, so the views' code imports zod and the SDK only as types.
import { App, applyDocumentTheme, type McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-with-deps';

/** The App of this view, connected; `setUp` registers its handlers before the host's first message. */
export async function connectView(name: string, setUp: (app: App) => void): Promise<App> {
  const app = new App({ name: `treefarm-${name}`, version: '1.0.0' });
  const follow = (context: McpUiHostContext | undefined) => {
    if (context?.theme) applyDocumentTheme(context.theme);
  };
  app.onhostcontextchanged = follow;
  setUp(app);
  await app.connect();
  follow(app.getHostContext());
  return app;
}

/** The element with this id, which the view's own markup made. */
export function byId<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`The view has no #${id}`);
  return found as T;
}

/** An element with its class and text. */
export function make<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text = '',
  className = '',
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== '') node.textContent = text;
  if (className !== '') node.className = className;
  return node;
}

/** The first text of a tool result: the server's words for what went wrong. */
export const firstText = (content: readonly { type: string; text?: string }[] | undefined) =>
  content?.find((block) => block.type === 'text')?.text ?? '';
