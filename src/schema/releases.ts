// Data releases: the file each release is kept in (releases/<id>.json in the repository) and
// the entries of GET /api/releases. The API schemas also give OpenAPI and the client's types.
import { z } from 'zod';
import { kindIds, type KindId } from './kinds.ts';
import { RELEASE_ID } from './release-ids.ts';

const kindId = z.enum(kindIds);
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'expected a lowercase hex SHA-256');
const dataVersion = z.string().regex(/^[0-9a-f]{16}$/, 'expected a data version (16 hex digits)');
const utcDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a UTC date YYYY-MM-DD');
export const releaseIdSchema = z
  .string()
  .regex(RELEASE_ID, 'expected a release id: the UTC date YYYY-MM-DD, then -2, -3, ... for later ones that day');

/** A record as a release names it: its kind, name (none for plots) and level. */
export const changedRecordSchema = z.strictObject({
  kind: kindId,
  name: z.string().optional(),
  level: z.int(),
});

export const fieldChangeSchema = z.strictObject({ from: z.unknown(), to: z.unknown() });

export const releaseChangesSchema = z.strictObject({
  added: z.array(changedRecordSchema).describe('Records new in this release, with their values in it.'),
  removed: z.array(changedRecordSchema).describe('Records gone in this release, with their values before it.'),
  changed: z
    .array(
      changedRecordSchema.extend({
        fields: z
          .record(z.string(), fieldChangeSchema)
          .describe(
            'Each field that differs, with its value before (`from`) and in this release (`to`); null: absent.',
          ),
      }),
    )
    .describe('Records (matched by kind and slug, so a rename is a changed name) whose fields differ.'),
});

/** What names and describes a release: in its file, in GET /api/releases and on the wiki alike. */
export const releaseFieldsSchema = z.strictObject({
  id: releaseIdSchema,
  date: utcDate.describe('The UTC date the release was made.'),
  version: dataVersion.describe("The release's data version: X-Data-Version of answers pinned to it."),
  notes: z.string(),
});

export type ReleaseFields = z.infer<typeof releaseFieldsSchema>;

/** A release's own fields, out of anything that carries them (a release with its content, its changes). */
export const releaseFieldsOf = ({ id, date, version, notes }: ReleaseFields): ReleaseFields => ({
  id,
  date,
  version,
  notes,
});

export const releaseSummarySchema = releaseFieldsSchema.extend({
  counts: z
    .strictObject(
      // Object.fromEntries cannot know its keys are exactly the kinds.
      Object.fromEntries(kindIds.map((id) => [id, z.int().nonnegative()])) as Record<KindId, z.ZodInt>,
    )
    .describe('How many records of each kind the release holds.'),
  changes: releaseChangesSchema.describe('Against the release before it; the first lists every record as added.'),
});

export type ChangedRecord = z.infer<typeof changedRecordSchema>;
export type FieldChange = z.infer<typeof fieldChangeSchema>;
export type ReleaseChanges = z.infer<typeof releaseChangesSchema>;
export type ReleaseSummary = z.infer<typeof releaseSummarySchema>;

/** A release's file in the repository: written once by `npm run release`, never rewritten. */
export const releaseFileSchema = releaseFieldsSchema.extend({
  notes: z.string().regex(/\S/, 'expected release notes'),
  /** The sha256 of the release before, so the releases form a chain; null for the first. */
  previous: sha256.nullable(),
  /** Every record's content, by kind, in list order. */
  records: z.record(kindId, z.array(z.strictObject({ slug: z.string(), data: z.record(z.string(), z.unknown()) }))),
  /** Of everything above (releaseDigest): an edit after the release was made shows. */
  sha256,
});

export type ReleaseFile = z.infer<typeof releaseFileSchema>;
