// Runs before each file of the integration project: when the file ends, after its own hooks,
// every runtime it started and did not close (or is still starting) is closed, so no workerd
// depends on how vitest stops the file's process (test/support/unclosed-runtimes.ts says why).
import { afterAll } from 'vitest';
import { closeStartedRuntimes } from '../support/unclosed-runtimes.ts';

afterAll(closeStartedRuntimes);
