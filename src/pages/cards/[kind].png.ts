// The card of each kind: its records' count and levels and its first chart (src/wiki/card-layout.ts's
// kindCard), named by its listing's pages and by the pages of its records past the first
// CARDS_PER_KIND (src/contract/cards.ts), rendered at build time.
import type { APIRoute, GetStaticPaths } from 'astro';
import { CARD_TYPE, kindCardPath } from '../../contract/cards.ts';
import { kinds, type KindId } from '../../schema/kinds.ts';
import { kindCard } from '../../wiki/card-layout.ts';
import { cardPng } from '../../wiki/card-render.ts';
import { type KindCardSummary, kindCardSummary, prepareKindCharts } from '../../wiki/model.ts';
import { entriesOf } from '../../wiki/records.ts';

interface Props {
  kind: KindId;
  summary: KindCardSummary;
}

export const getStaticPaths = (async () => {
  const paths = [];
  for (const kind of kinds) {
    const entries = await entriesOf(kind.id);
    const summary = kindCardSummary(kind.id, entries, prepareKindCharts(kind.id, entries));
    paths.push({ params: { kind: kind.id }, props: { kind: kind.id, summary } });
  }
  return paths;
}) satisfies GetStaticPaths;

export const GET: APIRoute<Props> = async ({ props: { kind, summary } }) => {
  const png = await cardPng(kindCard(kind, summary), { name: `all ${kind}`, path: kindCardPath(kind) });
  return new Response(new Uint8Array(png), { headers: { 'Content-Type': CARD_TYPE } });
};
