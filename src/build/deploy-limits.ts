// What a Cloudflare Workers deployment of dist/ can hold (docs/deploy.md), checked against a
// build before anyone tries to deploy it: the number of static asset files per Worker
// version, the size of each, and the manifest the Worker parses into its isolate's memory.
// deployProblems is pure: given the files and their sizes, it returns what would fail, in words.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Cloudflare's limits at the time of writing (developers.cloudflare.com/workers/platform/limits/). */
export const WORKERS_LIMITS = {
  /** Static asset files per Worker version, by plan. */
  assetFiles: { free: 20_000, paid: 100_000 },
  /** Largest single static asset file. */
  assetFileBytes: 25 * 1024 * 1024,
  /** Memory of one isolate, on every plan. */
  isolateMemoryBytes: 128 * 1024 * 1024,
} as const;

export type WorkersPlan = keyof typeof WORKERS_LIMITS.assetFiles;

/**
 * The largest manifest the Worker can parse and still serve: while it is parsed, its bytes, its
 * text and the parsed objects (1.6 times its size) are all held, about 3.6 times its size
 * (measured on the 100k build, docs/deploy.md), and the isolate must keep room for the bodies
 * it caches (16 MiB) and the runtime itself.
 */
export const MANIFEST_BUDGET_BYTES = 16 * 1024 * 1024;

export interface BuiltFile {
  /** Path below dist/, forward slashes. */
  path: string;
  size: number;
}

const MiB = 1024 * 1024;
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

/** Why a Workers deployment of these files on `plan` would fail or not serve; empty when it fits. */
export function deployProblems(files: readonly BuiltFile[], manifestBytes: number, plan: WorkersPlan): string[] {
  const problems: string[] = [];
  const maxFiles = WORKERS_LIMITS.assetFiles[plan];
  if (files.length > maxFiles)
    problems.push(
      `${files.length.toLocaleString('en')} files: Workers static assets take at most ` +
        `${maxFiles.toLocaleString('en')} per version on the ${plan} plan, so wrangler deploy would refuse the upload.`,
    );
  const tooLarge = files.filter((file) => file.size > WORKERS_LIMITS.assetFileBytes);
  for (const file of tooLarge.slice(0, 5))
    problems.push(
      `${file.path} is ${mib(file.size)}: a static asset may be at most ${mib(WORKERS_LIMITS.assetFileBytes)}, ` +
        'so wrangler deploy would refuse it.',
    );
  if (tooLarge.length > 5)
    problems.push(`... and ${tooLarge.length - 5} more files over ${mib(WORKERS_LIMITS.assetFileBytes)}.`);
  if (manifestBytes > MANIFEST_BUDGET_BYTES)
    problems.push(
      `manifest.json is ${mib(manifestBytes)}: parsed, it would not leave the Worker room in its ` +
        `${mib(WORKERS_LIMITS.isolateMemoryBytes)} isolate (budget ${mib(MANIFEST_BUDGET_BYTES)}); ` +
        'the deploy would succeed but API requests would fail with exceeded memory.',
    );
  return problems;
}

/** Every file below `dir` (what wrangler would upload) with its size. */
export function filesBelow(dir: string): BuiltFile[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const fullPath = join(entry.parentPath, entry.name);
      return { path: relative(dir, fullPath).split('\\').join('/'), size: statSync(fullPath).size };
    });
}
