// One serving process of `npm run serve` without its supervisor, configured by the same
// variables: what bench/instructions.ts runs under valgrind, where a forked process would be
// counted apart from the process that starts it.
import { serveInThisProcess } from '../../src/server/serve.ts';
import { settingsFromEnvironment } from '../../src/server/settings.ts';

await serveInThisProcess(settingsFromEnvironment());
