// The planner view (ui://treefarm/planner.html), in the host's frame beside a `plan` answer:
// the farm's level, plot and money as inputs, the trees within reach ranked by profit per hour
// and the next upgrade, in the words and figures of the wiki's planner (src/wiki/planner.ts,
// planView). A changed input asks `plan` again through the host (callServerTool): the view has
// no network of its own.
import type { App } from '@modelcontextprotocol/ext-apps/app-with-deps';
import type { Plan } from '../../../contract/economics.ts';
import { inputsNote, type PlannerRow, planView, readMoney } from '../../../wiki/planner.ts';
import { byId, connectView, firstText, make } from './connect.ts';

/** The plan tool's structuredContent, as the view reads it (tool-schemas.ts types it). */
interface PlanAnswer extends Omit<Plan, 'current'> {
  level: number;
  plot: { level: number | null; growthSpeed: number };
  money: number | null;
  current: Plan['current'] | null;
}

document.body.innerHTML = `<main class="mcp-view">
  <h1>Planner</h1>
  <form id="planner" class="planner-form">
    <div class="field"><label for="planner-level">Your tree level</label>
      <input id="planner-level" name="level" type="number" inputmode="numeric" min="1" step="1" required /></div>
    <div class="field"><label for="planner-plot">Your plot level</label>
      <input id="planner-plot" name="plot" type="number" inputmode="numeric" min="1" step="1" placeholder="normal"
        aria-describedby="planner-plot-hint" />
      <span id="planner-plot-hint" class="note">Empty for a normal plot.</span></div>
    <div class="field"><label for="planner-money">Your money</label>
      <input id="planner-money" name="money" type="text" inputmode="decimal" autocomplete="off" placeholder="no limit"
        aria-describedby="planner-money-hint" />
      <span id="planner-money-hint" class="note">In-game dollars, such as 25000 or 1.5M; empty for no limit.</span>
    </div>
  </form>
  <p id="planner-error" class="planner-error" role="alert"></p>
  <p id="planner-summary" role="status"></p>
  <p id="planner-next"></p>
  <div class="table-scroll" role="region" aria-labelledby="planner-caption" tabindex="0">
    <table id="planner-table">
      <caption id="planner-caption">Trees within reach, best profit per hour first
        <span id="planner-caption-note" class="note"></span></caption>
      <thead><tr><th scope="col" class="number">Rank</th><th scope="col">Tree</th>
        <th scope="col" class="number">Level</th>
        <th scope="col" class="number">Profit per hour</th><th scope="col" class="number">Cost from your level</th>
        <th scope="col" class="number">Upgrade payback</th></tr></thead>
      <tbody></tbody>
    </table>
  </div>
</main>`;

const level = byId<HTMLInputElement>('planner-level');
const plot = byId<HTMLInputElement>('planner-plot');
const money = byId<HTMLInputElement>('planner-money');
const error = byId('planner-error');

function cell(tag: 'td' | 'th', text: string, title?: string): HTMLTableCellElement {
  const node = make(tag, text, tag === 'td' ? 'number' : '');
  if (tag === 'th') node.scope = 'row';
  if (title !== undefined) node.title = title;
  return node;
}

const rowOf = (row: PlannerRow) => {
  const line = make('tr');
  line.append(
    cell('td', String(row.rank)),
    cell('th', row.name),
    cell('td', String(row.level)),
    cell('td', row.profitPerHour.text, row.profitPerHour.exact),
    cell('td', row.costFromHere.text, row.costFromHere.exact),
    cell('td', row.upgradePayback.text, row.upgradePayback.exact),
  );
  return line;
};

/** The answer's plan, shown as the wiki's planner shows one, and its inputs in the form. */
function show(answer: PlanAnswer): void {
  const view = planView({ ...answer, current: answer.current ?? undefined }, () => '');
  byId<HTMLTableElement>('planner-table').tBodies[0]?.replaceChildren(...view.rows.map(rowOf));
  byId('planner-summary').textContent = view.summary;
  byId('planner-next').textContent = view.next;
  const used = answer.plot.level === null ? undefined : { ...answer.plot, level: answer.plot.level };
  byId('planner-caption-note').textContent = inputsNote(used, answer.level, answer.money ?? Number.POSITIVE_INFINITY);
  level.value = String(answer.level);
  plot.value = answer.plot.level === null ? '' : String(answer.plot.level);
  money.value = answer.money === null ? '' : String(answer.money);
  error.textContent = '';
}

/** The inputs as plan's arguments; a line naming what is wrong when they cannot be. */
function inputs(): Record<string, number> | undefined {
  const read = readMoney(money.value);
  const problems = [
    level.validity.valid && level.value !== '' ? '' : 'Your tree level is a whole number from 1.',
    plot.validity.valid ? '' : 'Your plot level is a whole number from 1, or empty.',
    read.ok ? '' : read.error,
  ].filter((problem) => problem !== '');
  level.setAttribute('aria-invalid', String(!level.validity.valid || level.value === ''));
  money.setAttribute('aria-invalid', String(!read.ok));
  error.textContent = problems.join(' ');
  if (problems.length > 0 || !read.ok) return undefined;
  return {
    level: Number(level.value),
    ...(plot.value === '' ? {} : { plot: Number(plot.value) }),
    ...(Number.isFinite(read.money) ? { money: read.money } : {}),
  };
}

/** Asks plan again for the inputs, through the host; the last ranking stays until the answer comes. */
async function replan(app: App): Promise<void> {
  const args = inputs();
  if (!args) return;
  const result = await app.callServerTool({ name: 'plan', arguments: args });
  if (result.isError || !result.structuredContent) error.textContent = firstText(result.content);
  else show(result.structuredContent as unknown as PlanAnswer);
}

const form = byId<HTMLFormElement>('planner');
const app = await connectView('planner', (view) => {
  view.ontoolresult = ({ structuredContent, isError, content }) => {
    if (isError || !structuredContent) error.textContent = firstText(content);
    else show(structuredContent as unknown as PlanAnswer);
  };
});
const ask = () => {
  replan(app).catch((reason: unknown) => {
    error.textContent = `The planner could not ask for a new plan (${String(reason)}).`;
  });
};
form.addEventListener('change', ask);
form.addEventListener('submit', (event) => {
  event.preventDefault();
  ask();
});
