// The project's own folder (where package.json, dist/ and content/ are), found from this file
// wherever the project lives: the one place every command and test takes it from.
import { fileURLToPath } from 'node:url';

export const projectDir = fileURLToPath(new URL('../../', import.meta.url));
