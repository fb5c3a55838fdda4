// `npm start`: build dist/ when it is missing or older than its sources, then serve it.
import { buildWhenStale, projectBuild } from '../build/site.ts';
import { ContentError } from '../build/content.ts';
import { serve } from './serve.ts';
import { settingsFromEnvironment } from './settings.ts';

try {
  // Checked before any build: a bad variable is refused at once.
  const settings = settingsFromEnvironment();
  await buildWhenStale(projectBuild, console.log);
  await serve(settings);
} catch (error) {
  console.error(
    error instanceof ContentError
      ? error.message
      : `Cannot start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
}
