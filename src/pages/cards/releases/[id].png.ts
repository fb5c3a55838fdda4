// The card of each data release, made from what its page shows (src/wiki/changes.ts) and
// rendered at build time.
import type { APIRoute, GetStaticPaths } from 'astro';
import { CARD_TYPE, releaseCardPath } from '../../../contract/cards.ts';
import { releaseCard } from '../../../wiki/card-layout.ts';
import { cardPng } from '../../../wiki/card-render.ts';
import { type ReleaseView, releaseViews } from '../../../wiki/changes.ts';
import { currentRecords, history } from '../../../wiki/releases.ts';

interface Props {
  release: ReleaseView;
}

export const getStaticPaths = (() =>
  releaseViews(history, currentRecords).map((release) => ({
    params: { id: release.id },
    props: { release },
  }))) satisfies GetStaticPaths;

export const GET: APIRoute<Props> = async ({ props: { release } }) => {
  const of = { name: `release ${release.id}`, path: releaseCardPath(release.id) };
  return new Response(new Uint8Array(await cardPng(releaseCard(release), of)), {
    headers: { 'Content-Type': CARD_TYPE },
  });
};
