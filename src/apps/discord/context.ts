// What an answer needs besides the interaction: the build it reads, and the origin its links
// point to.
import type { RouteIndex } from '../../contract/resolve.ts';

export interface AnswerContext {
  index: RouteIndex;
  /** The public origin of the deployment, so a link opens the wiki of the same deployment. */
  origin: string;
}
