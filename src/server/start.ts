// `npm start`: build dist/ when it is missing or older than its sources, then serve it.
import { buildSite, projectDir } from '../build/site.ts';
import { ContentError } from '../build/content.ts';
import { staleReason } from '../build/freshness.ts';
import { serve } from './serve.ts';
import { settingsFromEnvironment } from './settings.ts';

try {
  // Checked before any build: a bad variable is refused at once.
  const settings = settingsFromEnvironment();
  const reason = staleReason(projectDir);
  if (reason) {
    console.log(`Building first: ${reason}.`);
    await buildSite();
  }
  await serve(settings);
} catch (error) {
  console.error(
    error instanceof ContentError
      ? error.message
      : `Cannot start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
}
