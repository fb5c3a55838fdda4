// One serving process of `npm run serve` without its supervisor, configured by the same
// variables: what bench/instructions.ts runs under valgrind, where a forked process would be
// counted apart from the process that starts it.
import { accessLog } from '../../src/server/access-log.ts';
import { startServer } from '../../src/server/app.ts';
import { settingsFromEnvironment } from '../../src/server/settings.ts';

const settings = settingsFromEnvironment();
const running = await startServer({ ...settings, accessLog: settings.accessLog ? accessLog() : undefined });
console.error(`Serving ${running.url}`);
process.on('SIGTERM', () => void running.close().then(() => process.exit(0)));
