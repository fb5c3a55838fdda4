// The downloads page's examples: the bundle's database with Python's sqlite3, its CSV files
// with Python's csv, and the whole bundle with the client package as someone who installed it
// imports it. Each `# →` or `// →` comment is what the line before (or the line itself) prints:
// the tests run every example against the built bundle and compare (test/bundles/examples.test.ts).
import { csvPath, SQLITE_FILE } from '../contract/bundle-layout.ts';

export interface BundleExample {
  /** The example's id on the page (data-example), for the tests. */
  id: 'python-sqlite' | 'python-csv' | 'js-bundle';
  code: string;
}

/** The examples, for a bundle named `tarball` (the .tar.gz the page offers). */
export function bundleExamples(tarball: string): BundleExample[] {
  return [
    {
      id: 'python-sqlite',
      code: `import sqlite3

db = sqlite3.connect('${SQLITE_FILE}')
unit = "SELECT unit FROM fields WHERE kind = 'trees' AND column_name = 'upgradeCost'"
(dollars,) = db.execute(unit).fetchone()
top = 'SELECT level, name, upgradeCost FROM trees ORDER BY level DESC LIMIT 2'
for level, name, cost in db.execute(top):
    print(f'{level} {name}: {cost:,} {dollars}')
# → 106 Yellow Birch: 23,619,637,994 in-game dollars
# → 105 White Spruce: 20,538,815,647 in-game dollars
for kind, name in db.execute("SELECT kind, name FROM search WHERE search MATCH 'acorns' ORDER BY rank"):
    print(kind, name)
# → trees Oak Tree
# → trees Northern Red Oak`,
    },
    {
      id: 'python-csv',
      code: `import csv
import json

with open('${csvPath('cutters')}', newline='', encoding='utf-8') as file:
    for row in csv.DictReader(file):
        if int(row['level']) <= 3:
            print(row['name'], f"{row['efficiency_min']}-{row['efficiency_max']} %", json.loads(row['aliases']))
# → Fist 10-20 % []
# → Knife 20-30 % ['Bread Knife']
# → Hatchet 30-40 % []`,
    },
    {
      id: 'js-bundle',
      code: `import { openBundle } from 'treefarm-data-client/offline';

const data = await openBundle('${tarball}'); // or the .zip, or its bytes
const [knife] = await data.cutters('bread knife'); // every file checked against manifest.json first
console.log(knife.name, knife.efficiency); // → Knife [ 20, 30 ]`,
    },
  ];
}
