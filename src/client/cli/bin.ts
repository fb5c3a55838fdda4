#!/usr/bin/env node
// The `treefarm` executable (the package's bin): runs the CLI on this process, on a Node it
// runs on (the package's engines), or says which it needs.
import { nodeProblem } from '../../cli/supported-node.ts';
import { CLIENT_MINIMUM_NODE, run } from './main.ts';

const problem = nodeProblem(process.versions.node, { minimum: CLIENT_MINIMUM_NODE, command: 'treefarm' });
if (problem === undefined) {
  process.exitCode = await run({
    argv: process.argv.slice(2),
    env: process.env,
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
  });
} else {
  process.stderr.write(`${problem}\n`);
  process.exitCode = 1;
}
