#!/usr/bin/env node
// The `treefarm` executable (the package's bin): runs the CLI on this process.
import { run } from './main.ts';

process.exitCode = await run({
  argv: process.argv.slice(2),
  env: process.env,
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
});
