// What keeps the static site from serving the API's files: a path outside /api/ that would
// still reach the private API folder once a file server decodes it.
import { API_DIR } from '../contract/paths.ts';

/**
 * Whether a path outside /api/ would still reach the private API folder once a static file
 * server decodes it (%2f, %5c, double encoding, letter case): such requests are refused.
 */
export function reachesApiFolder(pathname: string): boolean {
  let path = pathname;
  for (let round = 0; round < 4; round++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      break;
    }
    if (decoded === path) break;
    path = decoded;
  }
  const segments: string[] = [];
  for (const segment of path.replace(/\\/g, '/').split('/')) {
    if (segment === '..') segments.pop();
    else if (segment !== '' && segment !== '.') segments.push(segment);
  }
  return segments[0]?.toLowerCase() === API_DIR;
}
