// The registry of kinds: one entry per API endpoint, everything the build, the edge, the
// wiki and the client need to know about a kind.
import type { z } from 'zod';
import type { KindId } from './kind-ids.ts';
import * as records from './records.ts';

export { kindIds, type KindId } from './kind-ids.ts';

interface KindDefinition<Id extends string, Api extends z.ZodObject, Content extends z.ZodObject> {
  /** Plural id: endpoint path segment, content folder and collection name. */
  id: Id;
  /** The noun of API messages ("The requested tree data ..."). */
  noun: string;
  /** The API record schema; its shape order is the API key order. */
  schema: Api;
  /** The content file schema: the API record plus metadata. */
  contentSchema: Content;
  /** False for kinds without names (plots): level search only. */
  named: boolean;
  /** False where several records may share a level (gifts, ordered by `order`). */
  uniqueLevels: boolean;
}

function defineKind<const Id extends KindId, Api extends z.ZodObject, Content extends z.ZodObject>(
  kind: KindDefinition<Id, Api, Content>,
) {
  return kind;
}

export const kinds = [
  defineKind({
    id: 'trees',
    noun: 'tree',
    schema: records.treeSchema,
    contentSchema: records.treeContentSchema,
    named: true,
    uniqueLevels: true,
  }),
  defineKind({
    id: 'cutters',
    noun: 'cutter',
    schema: records.cutterSchema,
    contentSchema: records.cutterContentSchema,
    named: true,
    uniqueLevels: true,
  }),
  defineKind({
    id: 'gifts',
    noun: 'gift',
    schema: records.giftSchema,
    contentSchema: records.giftContentSchema,
    named: true,
    uniqueLevels: false,
  }),
  defineKind({
    id: 'plots',
    noun: 'plot',
    schema: records.plotSchema,
    contentSchema: records.plotContentSchema,
    named: false,
    uniqueLevels: true,
  }),
  defineKind({
    id: 'storages',
    noun: 'storage',
    schema: records.storageSchema,
    contentSchema: records.storageContentSchema,
    named: true,
    uniqueLevels: true,
  }),
  defineKind({
    id: 'vehicles',
    noun: 'vehicle',
    schema: records.vehicleSchema,
    contentSchema: records.vehicleContentSchema,
    named: true,
    uniqueLevels: true,
  }),
] as const;

export type Kind = (typeof kinds)[number];

export interface RecordsByKind {
  trees: records.Tree;
  cutters: records.Cutter;
  gifts: records.Gift;
  plots: records.Plot;
  storages: records.Storage;
  vehicles: records.Vehicle;
}
export type ApiRecord = RecordsByKind[KindId];

export function kindById(id: string): Kind | undefined {
  return kinds.find((kind) => kind.id === id);
}

/** The API field names of a kind, in the order the API serves them. */
export function apiFields(kind: Kind): string[] {
  return Object.keys(kind.schema.shape);
}

/** "small" -> "Small". */
export const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** A kind's heading: "Trees", "Storages". */
export const kindTitle = (kind: KindId): string => capitalized(kind);

/** One record's type name: "Tree"; the title of its JSON Schema and OpenAPI component. */
export const recordTitle = (kind: Kind): string => capitalized(kind.noun);
