// The processes a test run leaves behind: workerd or node processes started from this checkout
// (their working folder or command line in it) after the run began, still running at its end.
// Linux's /proc is read; elsewhere none are found. test/setup/no-leftovers.ts checks it.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename } from 'node:path';

/** A process of the system, as /proc shows it. */
export interface ProcessInfo {
  pid: number;
  parent: number;
  /** When it started, in clock ticks since boot. */
  started: number;
  command: string[];
  cwd: string;
}

/** What /proc says of a process; undefined once it is gone (or a zombie, which holds nothing). */
export function processInfo(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command's name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z') return undefined;
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    return {
      pid,
      parent: Number(fields[1]),
      started: Number(fields[19]),
      command,
      cwd: readlinkSync(`/proc/${pid}/cwd`),
    };
  } catch {
    return undefined;
  }
}

/** Every process of the system that /proc lets this one read. */
function allProcesses(): ProcessInfo[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries.flatMap((entry) => (/^\d+$/.test(entry) ? (processInfo(Number(entry)) ?? []) : []));
}

const inside = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);

/**
 * The workerd and node processes started from `projectDir` after `since` (this run's start) and
 * still running, but for `keep` (the run's own process and its ancestors) and the children of
 * `runner` that are vitest's own workers.
 */
export function leftoverProcesses(projectDir: string, since: number, keep: ReadonlySet<number>, runner: number) {
  const folder = projectDir.replace(/\/$/, '');
  return allProcesses().filter(({ pid, parent, started, command, cwd }) => {
    const program = basename(command[0] ?? '');
    if (keep.has(pid) || started < since || !/^(workerd|node)$/.test(program)) return false;
    if (parent === runner && command.some((part) => part.includes('vitest'))) return false;
    return inside(cwd, folder) || command.some((part) => part.includes(`${folder}/`));
  });
}

/** A process and its ancestors, by id. */
export function ancestry(pid: number): Set<number> {
  const line = new Set<number>();
  for (let current = processInfo(pid); current && !line.has(current.pid); current = processInfo(current.parent))
    line.add(current.pid);
  return line;
}
