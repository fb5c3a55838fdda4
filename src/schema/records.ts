// The record kinds of the game: the single source of truth for fields, their order in the
// API, content validation, TypeScript types, JSON Schema and OpenAPI.
import { z } from 'zod';
import { expected, measured, range, text, wholeNumber } from './fields.ts';

const level = wholeNumber(1).describe('The level of the record: lists are ordered by it, and a search by it finds it.');
const name = text('name').describe('The name the game shows; a search by it (or by an alias) finds the record.');
const dollars = (meaning: string) => measured(wholeNumber(0), 'in-game dollars', meaning);
const seconds = (meaning: string) => measured(wholeNumber(1), 'seconds', meaning);
/** A gift's reward: [min, max] of an amount, in `unit`. */
const reward = (unit: string) => measured(range(), unit, `[min, max] ${unit} the gift gives.`);
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

// API record schemas: exactly the fields the API serves, in the contract's key order. Every
// field says what it means (and its unit, if it has one): JSON Schema, OpenAPI and the
// offline database's table of fields show it.
export const treeSchema = strictRecord({
  name,
  funfact: text('fun fact').describe('A short, checkable fact about the species.'),
  plantingRegion: text('region (several joined by ", ")').describe(
    'Where the species grows: one region, or several joined by ", ".',
  ),
  level,
  growthTime: seconds('Seconds from planting to harvest.'),
  logCount: measured(wholeNumber(0), 'logs', 'Logs one harvest yields.'),
  logValue: dollars('In-game dollars one log sells for.'),
  saplingCost: dollars('In-game dollars one sapling costs.'),
  upgradeCost: dollars('In-game dollars to upgrade the farm to this tree; 0 at level 1.'),
});

export const cutterSchema = strictRecord({
  level,
  name,
  cooldown: seconds('Seconds between two cuts.'),
  cost: dollars('In-game dollars the cutter costs.'),
  efficiency: measured(
    range(0, 100, true),
    'percent',
    "Percentage range [min, max] of a tree's logs that one cut yields.",
  ),
});

export const giftSchema = strictRecord({
  level,
  name,
  money: reward('in-game dollars'),
  logs: reward('logs'),
  saplings: reward('saplings'),
  cutters: reward('cutters'),
  plots: reward('plots'),
  vehicles: reward('vehicles'),
});

export const plotSchema = strictRecord({
  level,
  cost: dollars('In-game dollars the plot costs.'),
  growthSpeed: measured(wholeNumber(1), 'percent', 'Growth speed in percent; 100 is normal.'),
});

export const storageSchema = strictRecord({
  level,
  name,
  cost: dollars('In-game dollars the storage costs.'),
  capacity: measured(wholeNumber(1), 'logs', 'Logs the storage holds.'),
});

export const vehicleSchema = strictRecord({
  level,
  name,
  cooldown: seconds('Seconds between two trips.'),
  cost: dollars('In-game dollars the vehicle costs.'),
  capacity: measured(wholeNumber(1), 'logs', 'Logs delivered per trip.'),
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
