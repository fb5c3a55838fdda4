// /changes: the latest data release and what it changed, linking to its page, with buttons to
// the older and newer releases; a press shows that release in the same message.
import type { APIInteractionResponse } from 'discord-api-types/v10';
import { formatValue } from '../../contract/figures.ts';
import { releaseCardPath } from '../../contract/cards.ts';
import { RELEASES_ROUTE, releasePath } from '../../contract/paths.ts';
import { currentRoute } from '../../contract/resolve.ts';
import { kindById, type KindId } from '../../schema/kinds.ts';
import type { ReleaseSummary } from '../../schema/releases.ts';
import { linkButton, rows, stepButton } from './buttons.ts';
import type { AnswerContext } from './context.ts';
import type { Message } from './limits.ts';
import { footer } from './records.ts';
import { ask, message, privateMessage, update } from './reply.ts';

/** A changed record's heading: its name, or "Level 3 plot". */
const changedTitle = ({ kind, name, level }: { kind: KindId; name?: string; level: number }) =>
  name ?? `Level ${level} ${kindById(kind)?.noun ?? kind}`;

/** Lines as a field's value; fitting the message cuts it at whole lines, saying how many are left out. */
const lines = (all: readonly string[]) => (all.length === 0 ? '—' : all.join('\n'));

/** Every release, newest first, and the data version served now (every footer's). */
async function releases(context: AnswerContext) {
  const asked = await ask(context.index, 'changes', {});
  if (!('answer' in asked)) throw new Error(`the changes tool refused: ${asked.refused}`);
  const { scope } = await currentRoute(context.index, RELEASES_ROUTE);
  return { all: asked.answer.data['releases'] as ReleaseSummary[], version: scope.version };
}

/** The message showing release `at` of `all` (newest first), with its buttons. */
export function releaseMessage(
  context: AnswerContext,
  all: readonly ReleaseSummary[],
  at: number,
  version: string,
): Message {
  const release = all[at] as ReleaseSummary;
  const { added, removed, changed } = release.changes;
  const changedLines = changed.flatMap((change) =>
    Object.entries(change.fields).map(
      ([field, { from, to }]) =>
        `${changedTitle(change)}: ${formatValue(change.kind, field, from)} → ${formatValue(change.kind, field, to)}`,
    ),
  );
  const url = context.origin + releasePath(release.id);
  const newer = all[at - 1];
  const older = all[at + 1];
  return {
    embeds: [
      {
        title: `Release ${release.id}`,
        url,
        // The counts first: a long note is cut before them.
        description: `${added.length} added, ${removed.length} removed, ${changed.length} changed\n\n${release.notes}`,
        fields: [
          { name: `Added (${added.length})`, value: lines(added.map(changedTitle)) },
          { name: `Removed (${removed.length})`, value: lines(removed.map(changedTitle)) },
          { name: `Changed (${changed.length})`, value: lines(changedLines) },
        ],
        footer: footer(version),
        // Every release has its card (src/contract/cards.ts), on the origin of the link.
        image: { url: context.origin + releaseCardPath(release.id) },
      },
    ],
    components: rows([
      ...(older ? [stepButton(`◀ ${older.id}`, { release: older.id })] : []),
      linkButton('Release page', url),
      ...(newer ? [stepButton(`${newer.id} ▶`, { release: newer.id })] : []),
    ]),
  };
}

/** /changes: the latest release. */
export async function changesAnswer(context: AnswerContext): Promise<APIInteractionResponse> {
  const { all, version } = await releases(context);
  if (all.length === 0) return privateMessage('There are no data releases yet.');
  return message(releaseMessage(context, all, 0, version));
}

/** A release button's press: the message updated to that release. */
export async function releaseStepAnswer(context: AnswerContext, id: string): Promise<APIInteractionResponse> {
  const { all, version } = await releases(context);
  const at = all.findIndex((release) => release.id === id);
  if (at === -1) return privateMessage(`There is no release ${id}: /changes shows the latest.`);
  return update(releaseMessage(context, all, at, version));
}
