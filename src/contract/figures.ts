// The figures of each kind as players read them, shared by every page or message that shows a
// record (the wiki's record pages, the Discord app's embeds): the label and unit of every API
// field, the derived figures that help a player decide (each with how it is worked out), and a
// record's title. The wiki adds its own tables and charts on top (src/wiki/views.ts).
import {
  costPerEfficiencyPoint,
  costPerLogOfCapacity,
  costPerLogPerMinute,
  costPerSpeedPercent,
  cutsPerMinute,
  growthTimeFactor,
  harvestValue,
  logShareCutPerMinute,
  logsPerMinute,
  midpoint,
  profitPerHarvest,
  profitPerHour,
  saplingReturn,
  speedBonus,
  type Range,
  upgradePayback,
  valuePerMinute,
} from './economics.ts';

export type { Range };
import { capitalized, type KindId } from '../schema/kind-ids.ts';
import type { RecordsByKind } from '../schema/kinds.ts';
import { exact, formatRange, shown, type Unit } from './format.ts';

export interface FieldFormat {
  label: string;
  /** 'text' fields are shown as words (name, region); the rest as figures. */
  unit: Unit | 'text';
}

/** A figure the game does not publish, worked out from the published ones. */
export interface Derived<T> {
  key: string;
  label: string;
  unit: Unit;
  /** How it is worked out, in words a player reads. */
  how: string;
  value: (data: T) => number;
}

/** How one kind's records are shown, whatever shows them. */
export interface FigureDefinition<K extends KindId> {
  /** The record's heading: its name, or "Level 3 plot" for kinds without names. */
  title: (data: RecordsByKind[K]) => string;
  /** Every API field; the compiler checks none is left out. */
  fields: { [F in keyof RecordsByKind[K]]-?: FieldFormat };
  derived: Derived<RecordsByKind[K]>[];
}

const level = { label: 'Level', unit: 'count' } as const;
const name = { label: 'Name', unit: 'text' } as const;
const cost = { label: 'Cost', unit: 'money' } as const;
const cooldown = { label: 'Cooldown', unit: 'seconds' } as const;

export const figureDefinitions: { [K in KindId]: FigureDefinition<K> } = {
  trees: {
    title: (tree) => tree.name,
    fields: {
      name,
      funfact: { label: 'Fun fact', unit: 'text' },
      plantingRegion: { label: 'Region', unit: 'text' },
      level,
      growthTime: { label: 'Growth time', unit: 'seconds' },
      logCount: { label: 'Logs per harvest', unit: 'count' },
      logValue: { label: 'Log value', unit: 'money' },
      saplingCost: { label: 'Sapling cost', unit: 'money' },
      upgradeCost: { label: 'Upgrade cost', unit: 'money' },
    },
    derived: [
      {
        key: 'harvestValue',
        label: 'Harvest value',
        unit: 'money',
        how: 'logs per harvest × log value',
        value: harvestValue,
      },
      {
        key: 'profitPerHarvest',
        label: 'Profit per harvest',
        unit: 'money',
        how: 'harvest value − sapling cost (one sapling replants it)',
        value: profitPerHarvest,
      },
      {
        key: 'profitPerHour',
        label: 'Profit per hour (normal plot)',
        unit: 'money',
        how: 'profit per harvest × 3600 ÷ growth time in seconds; a faster plot multiplies it by its speed ÷ 100%',
        value: (tree) => profitPerHour(tree),
      },
      {
        key: 'valuePerMinute',
        label: 'Value per minute of growth',
        unit: 'money',
        how: 'harvest value ÷ growth time in minutes',
        value: valuePerMinute,
      },
      {
        key: 'saplingReturn',
        label: 'Sapling return',
        unit: 'times',
        how: 'harvest value ÷ sapling cost: one harvest pays for this many saplings',
        value: saplingReturn,
      },
      {
        key: 'upgradePayback',
        label: 'Upgrade payback (harvests)',
        unit: 'decimal',
        how: 'upgrade cost ÷ harvest value',
        value: upgradePayback,
      },
    ],
  },
  cutters: {
    title: (cutter) => cutter.name,
    fields: { level, name, cooldown, cost, efficiency: { label: 'Efficiency', unit: 'percent' } },
    derived: [
      {
        key: 'averageEfficiency',
        label: 'Average efficiency',
        unit: 'percent',
        how: 'midpoint of the efficiency range',
        value: (cutter) => midpoint(cutter.efficiency),
      },
      {
        key: 'cutsPerMinute',
        label: 'Cuts per minute',
        unit: 'decimal',
        how: '60 ÷ cooldown in seconds',
        value: cutsPerMinute,
      },
      {
        key: 'logShareCutPerMinute',
        label: 'Share of a tree\u2019s logs cut per minute',
        unit: 'percent',
        how: 'average efficiency × cuts per minute',
        value: logShareCutPerMinute,
      },
      {
        key: 'costPerEfficiencyPoint',
        label: 'Cost per efficiency point',
        unit: 'money',
        how: 'cost ÷ average efficiency',
        value: costPerEfficiencyPoint,
      },
    ],
  },
  gifts: {
    title: (gift) => `${capitalized(gift.name)} gift`,
    fields: {
      level,
      name,
      money: { label: 'Money', unit: 'money' },
      logs: { label: 'Logs', unit: 'count' },
      saplings: { label: 'Saplings', unit: 'count' },
      cutters: { label: 'Cutters', unit: 'count' },
      plots: { label: 'Plots', unit: 'count' },
      vehicles: { label: 'Vehicles', unit: 'count' },
    },
    derived: [
      {
        key: 'averageMoney',
        label: 'Average money',
        unit: 'money',
        how: 'midpoint of the money range',
        value: (gift) => midpoint(gift.money),
      },
      {
        key: 'averageLogs',
        label: 'Average logs',
        unit: 'decimal',
        how: 'midpoint of the logs range',
        value: (gift) => midpoint(gift.logs),
      },
    ],
  },
  plots: {
    title: (plot) => `Level ${plot.level} plot`,
    fields: { level, cost, growthSpeed: { label: 'Growth speed', unit: 'percent' } },
    derived: [
      { key: 'speedBonus', label: 'Speed over normal', unit: 'percent', how: 'growth speed − 100%', value: speedBonus },
      {
        key: 'growthTimeFactor',
        label: 'Growth time multiplier',
        unit: 'times',
        how: '100% ÷ growth speed: multiply a tree\u2019s growth time by it',
        value: growthTimeFactor,
      },
      {
        key: 'costPerSpeedPercent',
        label: 'Cost per percent of speed',
        unit: 'money',
        how: 'cost ÷ growth speed',
        value: costPerSpeedPercent,
      },
    ],
  },
  storages: {
    title: (storage) => storage.name,
    fields: { level, name, cost, capacity: { label: 'Capacity (logs)', unit: 'count' } },
    derived: [
      {
        key: 'costPerLog',
        label: 'Cost per log of capacity',
        unit: 'money',
        how: 'cost ÷ capacity',
        value: costPerLogOfCapacity,
      },
    ],
  },
  vehicles: {
    title: (vehicle) => vehicle.name,
    fields: { level, name, cooldown, cost, capacity: { label: 'Capacity (logs per trip)', unit: 'count' } },
    derived: [
      {
        key: 'logsPerMinute',
        label: 'Logs delivered per minute',
        unit: 'count',
        how: 'capacity × 60 ÷ cooldown in seconds',
        value: logsPerMinute,
      },
      {
        key: 'costPerLogPerMinute',
        label: 'Cost per log per minute',
        unit: 'money',
        how: 'cost ÷ logs delivered per minute',
        value: costPerLogPerMinute,
      },
    ],
  },
};

/** A figure in both of its forms: as the game shows it ("$11.5K") and exact ("$11,500"). */
export interface FigureRow {
  label: string;
  shown: string;
  exact: string;
}

type Value = number | Range;

/** A field of a record as a figure's value or a text; undefined for anything else (aliases). */
export function fieldValue(data: object, field: string): Value | string | undefined {
  const value: unknown = (data as Record<string, unknown>)[field];
  if (typeof value === 'number' || typeof value === 'string') return value;
  if (Array.isArray(value)) {
    const [low, high]: unknown[] = value;
    if (typeof low === 'number' && typeof high === 'number') return [low, high];
  }
  return undefined;
}

const isRange = (value: Value): value is Range => typeof value !== 'number';
const formatted = (format: typeof shown, unit: Unit, value: Value) =>
  isRange(value) ? formatRange(format, unit, value) : format(unit, value);
/** What a table sorts a figure by: the number, or the middle of a range. */
export const sortKey = (value: Value) => String(isRange(value) ? (value[0] + value[1]) / 2 : value);

export function figureRow(label: string, unit: Unit, value: Value): FigureRow {
  return { label, shown: formatted(shown, unit, value), exact: formatted(exact, unit, value) };
}

/** A record's figures: its title, its texts (but the fun fact), its published figures, its derived ones. */
export interface RecordFigures {
  title: string;
  /** Text fields other than the fun fact: name and region. */
  texts: { label: string; text: string }[];
  figures: FigureRow[];
  derived: (FigureRow & { how: string })[];
}

/** What shows a record: its title, its fields' labels and units, its derived figures. */
interface Shown<T> {
  title: (data: T) => string;
  fields: { readonly [field: string]: FieldFormat };
  derived: readonly Derived<T>[];
}

/** A record's figures as `definition` shows them (figureDefinitions[kind], or a view built on it). */
export function recordFigures<T extends object>(definition: Shown<T>, data: T): RecordFigures {
  const texts: RecordFigures['texts'] = [];
  const figures: FigureRow[] = [];
  for (const [field, format] of Object.entries(definition.fields)) {
    const value = fieldValue(data, field);
    if (value === undefined) continue;
    if (typeof value === 'string') {
      if (field !== 'funfact') texts.push({ label: format.label, text: value });
    } else if (format.unit !== 'text') {
      figures.push(figureRow(format.label, format.unit, value));
    }
  }
  return {
    title: definition.title(data),
    texts,
    figures,
    derived: definition.derived.map((figure) => ({
      ...figureRow(figure.label, figure.unit, figure.value(data)),
      how: figure.how,
    })),
  };
}

/** Labels of the content fields the API does not serve (a release's changes name them too). */
const CONTENT_ONLY: Record<string, FieldFormat> = {
  aliases: { label: 'Earlier names', unit: 'text' },
  order: { label: 'Order within the level', unit: 'count' },
};

/** A field's label and unit, any field a release may change. */
export function fieldFormat(kind: KindId, field: string): FieldFormat {
  const fields: Record<string, FieldFormat> = figureDefinitions[kind].fields;
  return fields[field] ?? CONTENT_ONLY[field] ?? { label: field, unit: 'text' };
}

const isPair = (value: unknown): value is [number, number] =>
  Array.isArray(value) && value.length === 2 && value.every((item) => typeof item === 'number');

/**
 * A field's value as a change shows it (the wiki's Changes, the Discord app's /changes): exact
 * figures with their unit; absent as "—".
 */
export function formatValue(kind: KindId, field: string, value: unknown): string {
  const { unit } = fieldFormat(kind, field);
  if (value === null || value === undefined) return '—';
  if (unit !== 'text' && typeof value === 'number') return exact(unit, value);
  if (unit !== 'text' && isPair(value)) return formatRange(exact, unit, value);
  if (Array.isArray(value)) return value.length === 0 ? '—' : value.join(', ');
  return String(value);
}
