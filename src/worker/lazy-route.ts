// A route whose code the Worker loads on its first request, so an isolate that never serves it
// never compiles or evaluates it (POST /mcp: the MCP SDK and its zod schemas). Each route module
// is a file of src/worker/lazy/, imported as its `.js` sibling: `npm run worker:routes` (wrangler's
// build command) bundles each one there, and wrangler uploads it as a module of its own
// (find_additional_modules) instead of bundling it into the Worker's script. In-process tests
// import the source (vitest.config.ts maps the `.js` to it).
import { once } from './once.ts';

/** The route module, imported once per isolate: a failed import is let go, so the next request tries again. */
export const lazyRoute = <Route>(load: () => Promise<Route>): (() => Promise<Route>) => once(load);
