// `npm run build`: the whole build (site.ts), with a readable message when it fails.
import { ContentError } from './content.ts';
import { buildSite } from './site.ts';

const started = performance.now();
try {
  await buildSite();
  console.log(`Built dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  console.error(error instanceof ContentError ? error.message : error);
  console.error('The build failed; dist/ was left as it was.');
  process.exit(1);
}
