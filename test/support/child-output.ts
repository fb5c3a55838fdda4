// Waiting on a child process by what it prints, never by a clock: its output so far once a
// pattern shows in it, or a rejection with that output if it exits first.
import type { ChildProcess } from 'node:child_process';

/** Resolves with the child's output (stdout and stderr) once `pattern` shows in it; rejects if it exits first. */
export function outputUntil(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (pattern.test(output)) resolve(output);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code, signal) =>
      reject(new Error(`exited (${code ?? signal}) before printing ${pattern}:\n${output}`)),
    );
  });
}

/** Resolves with the child's exit code and signal once it has exited (at once if it has). */
export function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}
