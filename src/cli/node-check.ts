// Imported first by every command-line file of the project, before anything it would run: on an
// older Node a command would fail later saying nothing useful (without import.meta.main it
// exited 0 having done nothing), so it stops here with one line saying what it needs.
import { relative } from 'node:path';
import { MINIMUM_NODE, nodeProblem } from './supported-node.ts';

const problem = nodeProblem(process.versions.node, {
  minimum: MINIMUM_NODE,
  command: process.argv[1] === undefined ? 'This command' : relative(process.cwd(), process.argv[1]),
  features: [['import.meta.main', import.meta.main !== undefined]],
  advice: "Run it through npm (npm run <script> uses the project's own Node), or install a newer Node.",
});
if (problem !== undefined) {
  console.error(problem);
  process.exit(1);
}
