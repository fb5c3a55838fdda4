// The record view (ui://treefarm/record.html), in the host's frame beside a find_record or
// tree_economics answer: each record found as its wiki page shows it (src/wiki/model.ts,
// recordPage): its figures as the game shows them and exact, the derived ones with how they are
// worked out, and its kind's charts with it marked, drawn from the kind's records, which the
// view asks list_records for through the host (no network of its own).
import type { App } from '@modelcontextprotocol/ext-apps/app-with-deps';
import { kindIds, type KindId } from '../../../schema/kind-ids.ts';
import { recordPage } from '../../../wiki/model.ts';
import type { ContentOf, WikiEntry } from '../../../wiki/views.ts';
import { chartFigure } from './chart-svg.ts';
import { byId, connectView, firstText, make } from './connect.ts';

type AnyRecord = ContentOf<KindId>;
/** What find_record and tree_economics answer, as the view reads it (tool-schemas.ts types it). */
interface RecordAnswer {
  records?: AnyRecord[];
  tree?: AnyRecord | null;
  suggestions?: { name?: string; level: number }[];
}

document.body.innerHTML = '<main class="mcp-view" id="records"><p role="status" id="record-status">…</p></main>';
const main = byId('records');
const status = byId('record-status');

/** Every record of the kind (the charts draw them all), page after page if the tool pages them. */
async function allRecords(app: App, kind: KindId): Promise<AnyRecord[]> {
  const all: AnyRecord[] = [];
  let cursor: string | undefined;
  do {
    const result = await app.callServerTool({
      name: 'list_records',
      arguments: cursor === undefined ? { kind } : { kind, cursor },
    });
    const page = result.structuredContent as { records?: AnyRecord[]; nextCursor?: string } | undefined;
    if (result.isError || !page?.records) throw new Error(firstText(result.content));
    all.push(...page.records);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return all;
}

const sameRecord = (one: AnyRecord, other: AnyRecord) =>
  one.level === other.level && ('name' in one ? one.name : '') === ('name' in other ? other.name : '');

function table(caption: string, note: string, head: string[], rows: HTMLTableRowElement[], id: string) {
  const region = make('div', '', 'table-scroll');
  region.setAttribute('role', 'region');
  region.setAttribute('aria-labelledby', id);
  region.tabIndex = 0;
  const element = make('table');
  const title = make('caption', `${caption} `);
  title.id = id;
  title.append(make('span', note, 'note'));
  const header = make('tr');
  header.append(
    ...head.map((label, index) => {
      const th = make('th', label, index === 0 ? '' : 'number');
      th.scope = 'col';
      return th;
    }),
  );
  element.append(title, make('thead'), make('tbody'));
  element.tHead?.append(header);
  element.tBodies[0]?.append(...rows);
  region.append(element);
  return region;
}

function row(label: string, cells: string[], how?: string): HTMLTableRowElement {
  const line = make('tr');
  const name = make('th', label);
  name.scope = 'row';
  if (how !== undefined) name.append(' ', make('small', how, 'how'));
  line.append(name, ...cells.map((text) => make('td', text, 'number')));
  return line;
}

/** One record's card: its heading, figures, derived figures and charts. */
function card(kind: KindId, entries: WikiEntry<KindId>[], index: number, number: number): HTMLElement {
  const page = recordPage(kind, entries, index);
  const article = make('article', '', 'record-card');
  const heading = make('header', '', 'record-head');
  const tags = make('p', '', 'tags');
  tags.append(make('span', page.tagline, 'badge'));
  if (page.region) tags.append(make('span', `Region: ${page.region}`, 'badge'));
  heading.append(make('h1', page.title), tags);
  article.append(heading);
  if (page.funfact) article.append(make('p', `Fun fact: ${page.funfact}`, 'funfact'));
  const tables = make('div', '', 'figure-tables');
  tables.append(
    table(
      'Figures',
      'As the game shows them, and exact.',
      ['Figure', 'In game', 'Exact'],
      page.figures.map((figure) => row(figure.label, [figure.shown, figure.exact])),
      `figures-${number}`,
    ),
  );
  if (page.derived.length > 0)
    tables.append(
      table(
        'Derived figures',
        'Worked out by the wiki from the figures; the game does not publish them.',
        ['Figure, and how it is worked out', 'Value', 'Exact'],
        page.derived.map((figure) => row(figure.label, [figure.shown, figure.exact], figure.how)),
        `derived-${number}`,
      ),
    );
  article.append(tables);
  if (entries.length > 1) {
    const charts = make('div', '', 'charts');
    charts.append(...page.charts.map((chart) => chartFigure({ ...chart, id: `${chart.id}-${number}` })));
    article.append(make('h2', `${page.title} among all ${kind}`), charts);
  }
  return article;
}

async function show(app: App, kind: KindId, answer: RecordAnswer): Promise<void> {
  const found = answer.records ?? (answer.tree ? [answer.tree] : []);
  if (found.length === 0) {
    const near = (answer.suggestions ?? []).map((each) => each.name ?? `level ${each.level}`);
    status.textContent = near.length > 0 ? `Nothing found. The nearest: ${near.join(', ')}.` : 'Nothing found.';
    return;
  }
  // Without the kind's records the cards still show every figure, without the charts.
  const all = await allRecords(app, kind).catch(() => found);
  const entries = all.map((data) => ({ slug: '', data }));
  const cards = found.map((record, number) => {
    const index = entries.findIndex((entry) => sameRecord(entry.data, record));
    return index === -1 ? card(kind, [{ slug: '', data: record }], 0, number) : card(kind, entries, index, number);
  });
  status.textContent = found.length === 1 ? '' : `${found.length} records found.`;
  main.replaceChildren(status, ...cards);
}

let kind: KindId | undefined;
await connectView('record', (view) => {
  view.ontoolinput = ({ arguments: args }) => {
    const asked = args?.['kind'];
    kind = kindIds.find((id) => id === asked) ?? 'trees';
  };
  view.ontoolresult = ({ structuredContent, isError, content }) => {
    if (isError || !structuredContent) {
      status.textContent = firstText(content);
      return;
    }
    // tree_economics names no kind: its record is a tree.
    show(view, kind ?? 'trees', structuredContent as RecordAnswer).catch((reason: unknown) => {
      status.textContent = `The record could not be shown (${String(reason)}).`;
    });
  };
});
