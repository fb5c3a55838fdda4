// The kind tables' only script: each column heading becomes a button that sorts the rows by
// that column (numbers by value, text alphabetically), and again in reverse.
function enhance(table: HTMLTableElement): void {
  const headers = [...(table.tHead?.rows[0]?.cells ?? [])];
  const body = table.tBodies[0];
  if (!body) return;
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
    });
  });
}

for (const table of document.querySelectorAll<HTMLTableElement>('table[data-sortable]')) enhance(table);
for (const hint of document.querySelectorAll('.sort-hint')) hint.removeAttribute('hidden');
