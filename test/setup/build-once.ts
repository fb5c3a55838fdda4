import { buildSite } from '../../src/build/site.ts';
import { projectDir } from '../../src/cli/project-dir.ts';
import { staleReason } from '../../src/build/freshness.ts';

export default async function buildOnce(): Promise<void> {
  const reason = staleReason(projectDir);
  if (!reason) return;
  console.log(`Building dist/ for the tests: ${reason}`);
  await buildSite();
}

// `node test/setup/build-once.ts`: the same check before runs without this global setup (npm run test:mutation).
if (import.meta.main) await buildOnce();
