// The record kinds of the game: the single source of truth for fields, their order in the
// API, content validation, TypeScript types, JSON Schema and OpenAPI.
import { z } from 'zod';
import { expected, range, text, wholeNumber } from './fields.ts';

const level = wholeNumber(1);
const money = wholeNumber(0);
/**
 * Other names of a record (an item's earlier name, a species' right spelling where the game
 * misspells it), so a search by them still finds it (wiki and search only).
 */
const aliases = z.array(text('alias'), { error: expected('a list of names') }).optional();

function strictRecord<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown field${issue.keys.length > 1 ? 's' : ''} ` +
          `${issue.keys.map((key) => JSON.stringify(key)).join(', ')}; ` +
          `the fields are ${Object.keys(shape).join(', ')}`
        : expected('a mapping of fields')(issue),
  });
}

// API record schemas: exactly the fields the API serves, in the contract's key order.
export const treeSchema = strictRecord({
  name: text('name'),
  funfact: text('fun fact'),
  plantingRegion: text('region (several joined by ", ")'),
  level,
  growthTime: wholeNumber(1).describe('Seconds from planting to harvest.'),
  logCount: wholeNumber(0).describe('Logs one harvest yields.'),
  logValue: money.describe('In-game dollars one log sells for.'),
  saplingCost: money.describe('In-game dollars one sapling costs.'),
  upgradeCost: money.describe('In-game dollars to upgrade the farm to this tree; 0 at level 1.'),
});

export const cutterSchema = strictRecord({
  level,
  name: text('name'),
  cooldown: wholeNumber(1).describe('Seconds between two cuts.'),
  cost: money,
  efficiency: range(0, 100, true).describe("Percentage range [min, max] of a tree's logs that one cut yields."),
});

export const giftSchema = strictRecord({
  level,
  name: text('name'),
  money: range().describe('[min, max] in-game dollars.'),
  logs: range(),
  saplings: range(),
  cutters: range(),
  plots: range(),
  vehicles: range(),
});

export const plotSchema = strictRecord({
  level,
  cost: money,
  growthSpeed: wholeNumber(1).describe('Growth speed in percent; 100 is normal.'),
});

export const storageSchema = strictRecord({
  level,
  name: text('name'),
  cost: money,
  capacity: wholeNumber(1).describe('Logs the storage holds.'),
});

export const vehicleSchema = strictRecord({
  level,
  name: text('name'),
  cooldown: wholeNumber(1).describe('Seconds between two trips.'),
  cost: money,
  capacity: wholeNumber(1).describe('Logs delivered per trip.'),
});

// Content schemas: the API record plus metadata that the API does not serve.
export const treeContentSchema = treeSchema.extend({ aliases });
export const cutterContentSchema = cutterSchema.extend({ aliases });
export const giftContentSchema = giftSchema.extend({
  order: wholeNumber(1).describe('Position among the gifts of the same level (1 first).'),
});
export const plotContentSchema = plotSchema.extend({});
export const storageContentSchema = storageSchema.extend({ aliases });
export const vehicleContentSchema = vehicleSchema.extend({ aliases });

export type Tree = z.infer<typeof treeSchema>;
export type Cutter = z.infer<typeof cutterSchema>;
export type Gift = z.infer<typeof giftSchema>;
export type Plot = z.infer<typeof plotSchema>;
export type Storage = z.infer<typeof storageSchema>;
export type Vehicle = z.infer<typeof vehicleSchema>;
