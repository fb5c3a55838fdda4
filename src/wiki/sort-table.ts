// The kind tables' only script: each column heading becomes a button that sorts the rows by
// that column (numbers by value, text alphabetically), and again in reverse. aria-sort says
// the order on the heading; a polite status line tells screen readers what changed.
function enhance(table: HTMLTableElement): void {
  const headers = [...(table.tHead?.rows[0]?.cells ?? [])];
  const body = table.tBodies[0];
  if (!body) return;
  const status = document.createElement('p');
  status.className = 'visually-hidden';
  status.setAttribute('role', 'status');
  (table.closest('.table-scroll') ?? table).after(status);
  headers.forEach((header, column) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'sort';
    button.append(...header.childNodes);
    header.append(button);
    button.addEventListener('click', () => {
      const direction = header.getAttribute('aria-sort') === 'ascending' ? -1 : 1;
      for (const other of headers) other.removeAttribute('aria-sort');
      header.setAttribute('aria-sort', direction === 1 ? 'ascending' : 'descending');
      const numeric = header.dataset.type === 'number';
      const keyOf = (row: HTMLTableRowElement) => row.cells[column]?.dataset.sort ?? '';
      const rows = [...body.rows].sort((a, b) => {
        const order = numeric ? Number(keyOf(a)) - Number(keyOf(b)) : keyOf(a).localeCompare(keyOf(b));
        return order * direction;
      });
      body.append(...rows);
      const order = numeric ? ['lowest first', 'highest first'] : ['A to Z', 'Z to A'];
      const label = (button.textContent ?? '').replace('†', '').trim();
      status.textContent = `Sorted by ${label}, ${direction === 1 ? order[0] : order[1]}.`;
    });
  });
}

for (const table of document.querySelectorAll<HTMLTableElement>('table[data-sortable]')) enhance(table);
for (const hint of document.querySelectorAll('.sort-hint')) hint.removeAttribute('hidden');
