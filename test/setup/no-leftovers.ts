// The integration project's last check: no process the run started is still running at its end
// (a workerd whose Node parent was killed, a server a test never stopped). Those found are named
// and stopped, and the run fails: each stray workerd held gigabytes of memory.
import { projectDir } from '../../src/cli/project-dir.ts';
import { ancestry, leftoverProcesses, processInfo } from '../support/leftover-processes.ts';

export default function noLeftovers(): () => void {
  const runStarted = processInfo(process.pid)?.started ?? 0;
  return () => {
    const left = leftoverProcesses(projectDir, runStarted, ancestry(process.pid), process.pid);
    if (left.length === 0) return;
    for (const { pid } of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    const named = left.map(({ pid, parent, command }) => `  ${pid} (parent ${parent}): ${command.join(' ')}`);
    throw new Error(
      `${left.length} processes of the run were still running at its end (now stopped):\n${named.join('\n')}`,
    );
  };
}
