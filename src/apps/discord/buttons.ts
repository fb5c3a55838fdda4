// The buttons under an answer: a link to the wiki page, and steps to the previous and next
// record of the kind (list order: by level, gifts by their order) or the older and newer
// release. A step's custom_id says where it leads ("step:trees:42", "release:2026-11-22");
// a press sends it back unsigned by the app (Discord signs the interaction, not the id), so it
// is read as any input: parsed strictly, and a target that is not there is refused.
import type { APIActionRowComponent, APIButtonComponent } from 'discord-api-types/v10';
import { BUTTON, COMPONENT } from './commands.ts';
import { kindIds, type KindId } from '../../schema/kind-ids.ts';
import { RELEASE_ID } from '../../schema/release-ids.ts';

/** Where a step button leads: a record of a kind by its position in the kind's list, or a release. */
export type Step = { kind: KindId; position: number } | { release: string };

const STEP = /^step:([a-z]+):(0|[1-9]\d{0,5})$/;
const RELEASE = /^release:(.+)$/;

export const stepId = (step: Step): string =>
  'release' in step ? `release:${step.release}` : `step:${step.kind}:${step.position}`;

/** The step a custom_id says; undefined for one the app never made. */
export function stepOf(customId: unknown): Step | undefined {
  if (typeof customId !== 'string') return undefined;
  const step = STEP.exec(customId);
  if (step) {
    const kind = kindIds.find((id) => id === step[1]);
    return kind === undefined ? undefined : { kind, position: Number(step[2]) };
  }
  const release = RELEASE.exec(customId)?.[1];
  return release !== undefined && RELEASE_ID.test(release) ? { release } : undefined;
}

/** A button that steps to `step`, labelled with what it leads to. */
export const stepButton = (label: string, step: Step): APIButtonComponent => ({
  type: COMPONENT.button,
  style: BUTTON.secondary,
  label,
  custom_id: stepId(step),
});

export const linkButton = (label: string, url: string): APIButtonComponent => ({
  type: COMPONENT.button,
  style: BUTTON.link,
  label,
  url,
});

/** Buttons as rows of up to five, in order. */
export function rows(buttons: readonly APIButtonComponent[]): APIActionRowComponent<APIButtonComponent>[] {
  const all: APIActionRowComponent<APIButtonComponent>[] = [];
  for (let at = 0; at < buttons.length; at += 5)
    all.push({ type: COMPONENT.row, components: buttons.slice(at, at + 5) });
  return all;
}
