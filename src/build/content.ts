// Reads content/<kind>/<slug>.(yaml|yml|json), validates every file with the kind's zod
// schema and the rules across files, and returns the records in API order. Every problem
// found is reported at once, each naming the file, the field and what was expected.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { byListOrder, orderOf } from '../contract/list-order.ts';
import { searchKey } from '../contract/search-key.ts';
import { apiFields, kinds, type ApiRecord, type Kind, type KindId } from '../schema/kinds.ts';
import type { Manifest } from '../schema/manifest.ts';

/** Bumped when the envelope format changes, so the data version changes with it. */
const FORMAT_VERSION = 1;
const CONTENT_FILE = /^([a-z0-9]+(?:-[a-z0-9]+)*)\.(yaml|yml|json)$/;

export type ContentData = z.infer<Kind['contentSchema']>;

export interface ContentEntry {
  /** File name without extension: the record's wiki URL segment. */
  slug: string;
  /** Path relative to the project, for messages. */
  file: string;
  data: ContentData;
  /** The record exactly as the API serves it. */
  record: ApiRecord;
  /** Search keys of the name and each alias, in that order (empty for kinds without names). */
  keys: string[];
}

export interface Content {
  /** Hash of the validated content: X-Data-Version, the manifest and the bundles. */
  version: string;
  entries: Record<KindId, ContentEntry[]>;
}

export interface ContentIssue {
  file: string;
  field?: string;
  message: string;
}

export class ContentError extends Error {
  readonly issues: ContentIssue[];
  /** `subject`: what is invalid, "The content" or "The releases". */
  constructor(issues: ContentIssue[], subject = 'The content') {
    const lines = issues.map((issue) => `  ${issue.file}: ${issue.field ? `${issue.field}: ` : ''}${issue.message}`);
    super(
      `${subject} ${subject.endsWith('s') ? 'are' : 'is'} invalid ` +
        `(${issues.length} problem${issues.length === 1 ? '' : 's'}):\n${lines.join('\n')}`,
    );
    this.name = 'ContentError';
    this.issues = issues;
  }
}

/** Loads and validates all kinds under `contentDir`; throws a ContentError listing every problem. */
export function loadContent(contentDir: string, projectDir = join(contentDir, '..')): Content {
  const issues: ContentIssue[] = [];
  const entries = {} as Record<KindId, ContentEntry[]>;
  if (!existsSync(contentDir))
    throw new ContentError([
      { file: relative(projectDir, contentDir) || contentDir, message: 'the content folder is missing' },
    ]);
  const known = new Set<string>(kinds.map((kind) => kind.id));
  for (const name of readdirSync(contentDir).sort()) {
    if (!name.startsWith('.') && !known.has(name)) {
      issues.push({
        file: relative(projectDir, join(contentDir, name)),
        message: `not a kind; the kinds are ${[...known].join(', ')}`,
      });
    }
  }
  for (const kind of kinds) {
    entries[kind.id] = loadKind(kind, join(contentDir, kind.id), projectDir, issues);
  }
  if (issues.length > 0) throw new ContentError(issues);
  return { version: contentVersion(entries), entries };
}

/** One record's file before validation: its slug, its path for messages and its parsed value. */
export interface RecordSource {
  slug: string;
  file: string;
  value: unknown;
}

function loadKind(kind: Kind, dir: string, projectDir: string, issues: ContentIssue[]): ContentEntry[] {
  const folder = relative(projectDir, dir);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    issues.push({ file: folder, message: `the folder of ${kind.id} is missing` });
    return [];
  }
  const sources: RecordSource[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.')) continue;
    const file = `${folder}/${name}`;
    const match = CONTENT_FILE.exec(name);
    if (!match) {
      issues.push({
        file,
        message: 'not a content file: names are lower-case words joined by "-", ending in .yaml, .yml or .json',
      });
      continue;
    }
    const parsed = parseFile(join(dir, name), name.endsWith('.json'));
    if ('error' in parsed) issues.push({ file, field: parsed.field, message: parsed.error });
    else sources.push({ slug: name.slice(0, name.lastIndexOf('.')), file, value: parsed.value });
  }
  return validateKind(kind, sources, issues);
}

/** Validates one kind's records, alone and across each other; returns the valid ones in list order. */
export function validateKind(kind: Kind, sources: readonly RecordSource[], issues: ContentIssue[]): ContentEntry[] {
  const loaded: ContentEntry[] = [];
  for (const { slug, file, value } of sources) {
    const result = kind.contentSchema.safeParse(value);
    if (!result.success) {
      // A value can break two checks with the same words (too big and not exact): say it once.
      const said = new Set<string>();
      for (const issue of result.error.issues) {
        const field = issue.path.join('.') || undefined;
        if (said.has(`${field}: ${issue.message}`)) continue;
        said.add(`${field}: ${issue.message}`);
        issues.push({ file, field, message: issue.message });
      }
      continue;
    }
    const data = result.data as ContentData;
    loaded.push({ slug, file, data, record: toApiRecord(kind, data), keys: namesOf(data).map(searchKey) });
  }
  loaded.sort(byListOrder);
  checkAcrossFiles(kind, loaded, issues);
  return loaded;
}

function parseFile(path: string, isJson: boolean): { value: unknown } | { error: string; field?: string } {
  const text = readFileSync(path, 'utf8');
  if (isJson) {
    try {
      return { value: JSON.parse(text) };
    } catch (error) {
      return { error: `malformed JSON: ${(error as Error).message}` };
    }
  }
  // prettyErrors adds "at line L, column C" to the first line of the message.
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  const problem = document.errors[0];
  if (problem) {
    const error = `malformed YAML: ${problem.message.split('\n')[0]?.replace(/:$/, '')}`;
    // A duplicate key is a field given twice: name it.
    const field =
      problem.code === 'DUPLICATE_KEY' ? /^[^:\n]*/.exec(text.slice(problem.pos[0]))?.[0].trim() : undefined;
    return { error, field };
  }
  return { value: document.toJS() };
}

/** The API record: exactly the API fields, in the contract's order. */
function toApiRecord(kind: Kind, data: ContentData): ApiRecord {
  const source = data as Record<string, unknown>;
  return Object.fromEntries(apiFields(kind).map((field) => [field, source[field]])) as ApiRecord;
}

/** The record's name (if its kind has names), then its aliases. */
export function namesOf(data: ContentData): string[] {
  const names: string[] = 'name' in data ? [data.name] : [];
  if ('aliases' in data && data.aliases) names.push(...data.aliases);
  return names;
}

function checkAcrossFiles(kind: Kind, entries: ContentEntry[], issues: ContentIssue[]): void {
  const levelOwners = new Map<string, ContentEntry>();
  const keyOwners = new Map<string, { entry: ContentEntry; name: string }>();
  for (const entry of entries) {
    const slot = kind.uniqueLevels ? `${entry.data.level}` : `${entry.data.level}/${orderOf(entry)}`;
    const levelOwner = levelOwners.get(slot);
    if (levelOwner) {
      issues.push(
        kind.uniqueLevels
          ? {
              file: entry.file,
              field: 'level',
              message:
                `level ${entry.data.level} is also the level of ${levelOwner.file}; ` +
                `each level of ${kind.id} holds one record`,
            }
          : {
              file: entry.file,
              field: 'order',
              message:
                `level ${entry.data.level} with order ${orderOf(entry)} is also declared by ${levelOwner.file}; ` +
                'records of one level need distinct orders',
            },
      );
    } else {
      levelOwners.set(slot, entry);
    }
    namesOf(entry.data).forEach((name, index) => {
      const field = index === 0 ? 'name' : `aliases.${index - 1}`;
      const key = entry.keys[index] ?? '';
      if (key === '') {
        issues.push({
          file: entry.file,
          field,
          message: `${JSON.stringify(name)} has an empty search key (no letters or digits), so no search could find it`,
        });
        return;
      }
      const owner = keyOwners.get(key);
      // An alias may spell the record's own name differently ("Table Saw" for "Tablesaw").
      if (owner?.entry === entry) return;
      if (owner) {
        issues.push({
          file: entry.file,
          field,
          message:
            `${JSON.stringify(name)} has the search key "${key}", as ${JSON.stringify(owner.name)} of ` +
            `${owner.entry.file} does; names and aliases of one kind need distinct search keys`,
        });
      } else {
        keyOwners.set(key, { entry, name });
      }
    });
  }
}

/** How many records each kind has: the counts of the manifest, the bundles and the wiki. */
export function countsOf(content: Content): Manifest['counts'] {
  return Object.fromEntries(kinds.map((kind) => [kind.id, content.entries[kind.id].length])) as Manifest['counts'];
}

export function contentVersion(entries: Record<KindId, ContentEntry[]>): string {
  const hash = createHash('sha256').update(`format ${FORMAT_VERSION}\n`);
  for (const kind of kinds) {
    for (const entry of entries[kind.id]) hash.update(`${kind.id}/${entry.slug}\n${JSON.stringify(entry.data)}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}
