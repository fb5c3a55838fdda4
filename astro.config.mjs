// @ts-check
import { defineConfig } from 'astro/config';
import { siteConfig } from './src/build/astro-config.ts';

// The whole configuration is src/build/astro-config.ts, shared with `npm run build`.
export default defineConfig(siteConfig());
