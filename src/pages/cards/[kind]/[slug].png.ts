// The card of each record that has one of its own (src/contract/cards.ts's hasOwnCard, the rule the
// pages and the Discord app name cards by), made from the model its page shows (src/wiki/model.ts) and
// rendered at build time.
import type { APIRoute, GetStaticPaths } from 'astro';
import { CARD_TYPE, hasOwnCard, recordCardPath } from '../../../contract/cards.ts';
import { kinds, type KindId } from '../../../schema/kinds.ts';
import { cardFigures, recordCard } from '../../../wiki/card-layout.ts';
import { cardPng } from '../../../wiki/card-render.ts';
import type { PreparedChart } from '../../../wiki/chart.ts';
import { prepareKindCharts, recordCardPage } from '../../../wiki/model.ts';
import { entriesOf } from '../../../wiki/records.ts';
import type { WikiEntry } from '../../../wiki/views.ts';

interface Props {
  kind: KindId;
  index: number;
  entries: WikiEntry<KindId>[];
  charts: PreparedChart[];
}

export const getStaticPaths = (async () => {
  const paths = [];
  for (const kind of kinds) {
    const entries = await entriesOf(kind.id);
    const charts = prepareKindCharts(kind.id, entries);
    for (const [index, entry] of entries.entries())
      if (hasOwnCard(index))
        paths.push({ params: { kind: kind.id, slug: entry.slug }, props: { kind: kind.id, index, entries, charts } });
  }
  return paths;
}) satisfies GetStaticPaths;

export const GET: APIRoute<Props> = async ({ props: { kind, index, entries, charts } }) => {
  const page = recordCardPage(kind, entries, index, charts);
  const entry = entries[index] as WikiEntry<KindId>;
  const of = { name: `${kind}/${entry.slug}`, path: recordCardPath(kind, entry.slug, index) };
  const png = await cardPng(recordCard(kind, page, cardFigures(kind, entry.data)), of);
  return new Response(new Uint8Array(png), { headers: { 'Content-Type': CARD_TYPE } });
};
