// The registry of kinds: one entry per API endpoint, everything the build, the edge, the
// wiki and the client need to know about a kind.
import type { z } from 'zod';
import { capitalized, type KindFacts, kindFacts, type KindId } from './kind-ids.ts';
import * as records from './records.ts';

export { capitalized, kindIds, type KindId, kindTitle } from './kind-ids.ts';

interface KindDefinition<Id extends string, Api extends z.ZodObject, Content extends z.ZodObject> extends KindFacts {
  /** Plural id: endpoint path segment, content folder and collection name. */
  id: Id;
  /** The API record schema; its shape order is the API key order. */
  schema: Api;
  /** The content file schema: the API record plus metadata. */
  contentSchema: Content;
}

function defineKind<const Id extends KindId, Api extends z.ZodObject, Content extends z.ZodObject>(
  kind: KindDefinition<Id, Api, Content>,
) {
  return kind;
}

export const kinds = [
  defineKind({
    id: 'trees',
    ...kindFacts.trees,
    schema: records.treeSchema,
    contentSchema: records.treeContentSchema,
  }),
  defineKind({
    id: 'cutters',
    ...kindFacts.cutters,
    schema: records.cutterSchema,
    contentSchema: records.cutterContentSchema,
  }),
  defineKind({
    id: 'gifts',
    ...kindFacts.gifts,
    schema: records.giftSchema,
    contentSchema: records.giftContentSchema,
  }),
  defineKind({
    id: 'plots',
    ...kindFacts.plots,
    schema: records.plotSchema,
    contentSchema: records.plotContentSchema,
  }),
  defineKind({
    id: 'storages',
    ...kindFacts.storages,
    schema: records.storageSchema,
    contentSchema: records.storageContentSchema,
  }),
  defineKind({
    id: 'vehicles',
    ...kindFacts.vehicles,
    schema: records.vehicleSchema,
    contentSchema: records.vehicleContentSchema,
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

/** One record's type name: "Tree"; the title of its JSON Schema and OpenAPI component. */
export const recordTitle = (kind: Kind): string => capitalized(kind.noun);
