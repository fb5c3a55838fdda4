// /plan: the best tree within reach and the next upgrade with its payback, as the planner works
// them out (the MCP plan tool). Each figure is shown once, in the one form of its field.
import type { APIEmbedField, APIInteractionResponse } from 'discord-api-types/v10';
import type { NextUpgrade, PlanRow } from '../../contract/economics.ts';
import { figureRow } from '../../contract/figures.ts';
import { PLANNER_PATH } from '../../contract/paths.ts';
import { rows, linkButton } from './buttons.ts';
import type { AnswerContext } from './context.ts';
import { both, footer } from './records.ts';
import { ask, message, privateMessage } from './reply.ts';
import { OPTION_FORMS, refusal } from './words.ts';

const money = (value: number) => both(figureRow('', 'money', value));
const label = ({ name, level }: { name: string; level: number }) => `${name} (level ${level})`;

export async function planAnswer(
  context: AnswerContext,
  values: Record<string, unknown>,
): Promise<APIInteractionResponse> {
  const asked = await ask(context.index, 'plan', values);
  if ('refused' in asked) {
    const form = asked.option === undefined ? undefined : OPTION_FORMS[asked.option];
    // A form the option does not take, in the option's words; what the data refuses, as it says it.
    const problem = asked.refused.startsWith('expected') && form !== undefined ? form : asked.refused;
    return privateMessage(refusal('plan', asked.option, problem));
  }
  const { data } = asked.answer;
  const ranking = data['ranking'] as PlanRow[];
  const best = ranking[0];
  const next = data['next'] as NextUpgrade | null;
  const plot = data['plot'] as { level: number | null; growthSpeed: number };
  const fields: APIEmbedField[] = [
    { name: 'Plot', value: plot.level === null ? 'normal (100%)' : `level ${plot.level} (${plot.growthSpeed}%)` },
  ];
  if (best)
    fields.push(
      { name: 'Best tree within reach', value: label(best) },
      { name: 'Profit per hour (derived)', value: money(best.profitPerHour), inline: true },
      { name: 'Upgrades to reach it (derived)', value: money(best.costFromHere), inline: true },
    );
  if (next)
    fields.push(
      { name: 'Next upgrade', value: `${label(next)}${next.affordable ? '' : ', not affordable yet'}` },
      { name: 'Upgrade cost', value: money(next.cost), inline: true },
      {
        name: 'Payback (derived)',
        value: next.paybackHours === null ? 'never' : both(figureRow('', 'hours', next.paybackHours)),
        inline: true,
      },
      { name: 'Gain per hour (derived)', value: money(next.gainPerHour), inline: true },
    );
  // The figures are in the fields alone, so the text never rounds one another way.
  const reach = best
    ? `${ranking.length} tree${ranking.length === 1 ? '' : 's'} within reach; the best is ${label(best)}.`
    : 'No tree is within reach.';
  const upgrade = next ? ` Next upgrade: ${label(next)}.` : ' There is no upgrade above this level.';
  const url = context.origin + PLANNER_PATH;
  return message({
    embeds: [
      {
        title: `Plan for level ${String(data['level'])}`,
        url,
        description: reach + upgrade,
        fields,
        footer: footer(String(data['version'])),
      },
    ],
    components: rows([linkButton('Planner', url)]),
  });
}
