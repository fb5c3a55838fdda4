// `npm start`: build dist/ when it is missing or older than its sources, then serve it.
import '../cli/node-check.ts';
import { buildWhenStale, projectBuild } from '../build/site.ts';
import { ContentError } from '../build/content.ts';
import { buildVariables } from '../build/settings.ts';
import { runMain } from '../cli/command-line.ts';
import { serve, serveCommand, startFailure } from './serve.ts';
import { serveVariables, settingsFromEnvironment } from './settings.ts';

const { siteOrigin, dataDir } = buildVariables;

await runMain(
  {
    ...serveCommand,
    command: 'npm start',
    summary:
      'Builds dist/ when it is missing, older than its sources or made with other settings, then serves the wiki ' +
      'and the API until SIGTERM or SIGINT; SIGHUP reloads a new build.',
    variables: { ...serveVariables, siteOrigin, dataDir },
    examples: ['PORT=8080 npm start'],
  },
  async () => {
    try {
      // Checked before any build: a bad variable is refused at once.
      const settings = settingsFromEnvironment();
      await buildWhenStale(projectBuild, console.log);
      await serve(settings);
      return 0;
    } catch (error) {
      console.error(error instanceof ContentError ? error.message : `Cannot start: ${startFailure(error)}`);
      return 1;
    }
  },
);
