// Discord's limits on a message, as its documentation states them, checked on what the app
// sends: the Discord suites assert that no answer breaks one.
import type { APIEmbed, APIInteractionResponseCallbackData } from 'discord-api-types/v10';

/** Every limit of Discord's a message can break, as the problems it has (none: within them all). */
export function overLimits(data: APIInteractionResponseCallbackData): string[] {
  const problems: string[] = [];
  const over = (what: string, length: number | undefined, limit: number) => {
    if (length !== undefined && length > limit) problems.push(`${what}: ${length} > ${limit}`);
  };
  over('content', data.content?.length, 2000);
  const embeds: APIEmbed[] = data.embeds ?? [];
  over('embeds', embeds.length, 10);
  let total = 0;
  for (const embed of embeds) {
    over('title', embed.title?.length, 256);
    over('description', embed.description?.length, 4096);
    over('fields', embed.fields?.length, 25);
    over('footer', embed.footer?.text.length, 2048);
    total += (embed.title?.length ?? 0) + (embed.description?.length ?? 0) + (embed.footer?.text.length ?? 0);
    for (const field of embed.fields ?? []) {
      over('field name', field.name.length, 256);
      over('field value', field.value.length, 1024);
      if (field.name === '' || field.value === '') problems.push('an empty field');
      total += field.name.length + field.value.length;
    }
  }
  over('all embeds', total, 6000);
  const rows = data.components ?? [];
  over('rows', rows.length, 5);
  for (const row of rows) {
    const buttons = 'components' in row ? row.components : [];
    over('buttons in a row', buttons.length, 5);
    for (const button of buttons) {
      if ('label' in button) over('button label', button.label?.length, 80);
      if ('custom_id' in button) over('custom_id', button.custom_id.length, 100);
      if ('url' in button) over('button url', button.url.length, 512);
    }
  }
  if (JSON.stringify(data.allowed_mentions) !== '{"parse":[]}') problems.push('allowed_mentions is not {parse: []}');
  // A lone surrogate is no text Discord takes.
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(JSON.stringify(data) ?? ''))
    problems.push('a lone surrogate');
  return problems;
}
