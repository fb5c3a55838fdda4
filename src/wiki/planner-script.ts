// The planner page's script: loads every tree's and plot's figures, shows the form and
// recalculates the ranking, the summary and the next upgrade whenever an input changes. The
// page without it keeps its built table (a normal plot). Inputs a player typed wrong leave the
// last good ranking and say what is wrong, next to the form and on the input (aria-invalid).
import { NORMAL_GROWTH_SPEED } from '../contract/economics.ts';
import {
  plannerData,
  plannerView,
  inputsNote,
  readLevel,
  readMoney,
  type PlannerData,
  type PlannerFile,
  type PlannerRow,
} from './planner.ts';

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`The planner page has no #${id}`);
  return found as T;
}

function cell(tag: 'td' | 'th', text: string, title?: string): HTMLTableCellElement {
  const node = document.createElement(tag);
  if (tag === 'td') node.className = 'number';
  else node.scope = 'row';
  node.textContent = text;
  if (title !== undefined) node.title = title;
  return node;
}

function rowOf(row: PlannerRow): HTMLTableRowElement {
  const line = document.createElement('tr');
  const name = cell('th', '');
  const link = document.createElement('a');
  link.href = row.href;
  link.textContent = row.name;
  name.append(link);
  line.append(
    cell('td', String(row.rank)),
    name,
    cell('td', String(row.level)),
    cell('td', row.profitPerHour.text, row.profitPerHour.exact),
    cell('td', row.costFromHere.text, row.costFromHere.exact),
    cell('td', row.upgradePayback.text, row.upgradePayback.exact),
  );
  return line;
}

function start(form: HTMLFormElement, data: PlannerData): void {
  const level = element<HTMLInputElement>('planner-level');
  const levelTree = element('planner-level-tree');
  const plot = element<HTMLSelectElement>('planner-plot');
  const money = element<HTMLInputElement>('planner-money');
  const error = element('planner-error');
  const body = element<HTMLTableElement>('planner-table').tBodies[0];
  const names = new Map(data.trees.map((tree) => [tree.level, tree.name]));

  const update = () => {
    const levelRead = readLevel(level.value, data.trees);
    const moneyRead = readMoney(money.value);
    level.setAttribute('aria-invalid', String(!levelRead.ok));
    money.setAttribute('aria-invalid', String(!moneyRead.ok));
    const problems = [levelRead, moneyRead].flatMap((reading) => (reading.ok ? [] : [reading.error]));
    error.textContent = problems.join(' ');
    if (!levelRead.ok || !moneyRead.ok) return;
    levelTree.textContent = names.get(levelRead.level) ?? '';
    const chosen = data.plots.find((candidate) => String(candidate.level) === plot.value);
    const growthSpeed = chosen?.growthSpeed ?? NORMAL_GROWTH_SPEED;
    const view = plannerView(data.trees, { level: levelRead.level, growthSpeed, money: moneyRead.money });
    body?.replaceChildren(...view.rows.map(rowOf));
    element('planner-summary').textContent = view.summary;
    element('planner-next').textContent = view.next;
    element('planner-caption-note').textContent = inputsNote(chosen, levelRead.level, moneyRead.money);
  };

  form.addEventListener('input', update);
  form.addEventListener('change', update);
  // Enter in a field recalculates; there is nothing to send.
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    update();
  });
  form.hidden = false;
  update();
}

const form = document.querySelector<HTMLFormElement>('form#planner');
if (form?.dataset.src) {
  fetch(form.dataset.src)
    .then((response) => {
      if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
      return response.json() as Promise<PlannerFile>;
    })
    .then((file) => start(form, plannerData(file)))
    .catch((reason: unknown) => {
      element('planner-error').textContent =
        `The planner could not load its figures (${String(reason)}); ` +
        'the table shows a normal plot from the lowest level.';
    });
}
