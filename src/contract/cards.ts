// The cards: one PNG picture of each record and each data release, made at build time
// (src/wiki/card-render.ts) for link previews (the pages' og:image) and the Discord app's
// embeds. Where a card is and which card a page names are defined here, once, for the wiki
// and the app alike.
import type { KindId } from '../schema/kind-ids.ts';

/** The size link previews expect (Open Graph's 1.91:1), in pixels. */
export const CARD_WIDTH = 1200;
export const CARD_HEIGHT = 630;
export const CARD_TYPE = 'image/png';
/** The folder of dist/ (and the site) that holds the cards: public, like the wiki. */
export const CARDS_DIR = '/cards/';

/**
 * The records of a kind that get a card of their own: the first this many in list order (one
 * page of the kind's listing). Every real kind fits; at 10,000 trees a card each would cost the
 * build some ten minutes (about 50 ms a card), so the pages of the rest name their kind's card.
 */
export const CARDS_PER_KIND = 200;

/** Whether the record at `position` of its kind's list has a card of its own (else its kind's). */
export const hasOwnCard = (position: number): boolean => position < CARDS_PER_KIND;

/** A kind's card: its records, levels and first chart; named by its listing and the records past CARDS_PER_KIND. */
export const kindCardPath = (kind: KindId): string => `${CARDS_DIR}${kind}.png`;

/** The card the page of the record at `position` of its kind's list names: its own, or its kind's. */
export const recordCardPath = (kind: KindId, slug: string, position: number): string =>
  hasOwnCard(position) ? `${CARDS_DIR}${kind}/${slug}.png` : kindCardPath(kind);

/** The card of a data release: every release has one. */
export const releaseCardPath = (id: string): string => `${CARDS_DIR}releases/${id}.png`;
