// @ts-check
import { defineConfig } from 'astro/config';
import treefarmData from './src/build/integration.ts';

// The wiki is static; the integration adds the prebuilt API, the manifest, the search index
// and the offline bundles to the same output (see src/build/integration.ts).
export default defineConfig({
  site: 'https://treefarm.example',
  output: 'static',
  trailingSlash: 'ignore',
  build: { format: 'directory' },
  integrations: [treefarmData()],
});
