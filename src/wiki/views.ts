// How the wiki presents each kind: labels and units of every API field, the derived
// figures that help a player decide, the kind table's columns and the charts.
import type { z } from 'zod';
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
  upgradePayback,
  valuePerMinute,
} from '../contract/economics.ts';
import { capitalized, type Kind, type KindId, type RecordsByKind } from '../schema/kinds.ts';
import type { Unit } from './format.ts';

export type ContentOf<K extends KindId> = z.infer<Extract<Kind, { id: K }>['contentSchema']>;

/** One record as the wiki sees it: its slug (the URL segment) and its content. */
export interface WikiEntry<K extends KindId> {
  slug: string;
  data: ContentOf<K>;
}

export type Range = readonly [number, number];

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

export interface ChartSpec<T> {
  title: string;
  unit: Unit;
  /** 'log' when the values span several powers of ten. */
  scale: 'log' | 'linear';
  series: { label: string; value: (data: T) => number }[];
}

export interface KindView<K extends KindId> {
  /** The record's heading: its name, or "Level 3 plot" for kinds without names. */
  title: (data: ContentOf<K>) => string;
  /** A sentence about the kind, for the home page and the kind's page. */
  intro: string;
  /** Every API field; the compiler checks none is left out. */
  fields: { [F in keyof RecordsByKind[K]]-?: FieldFormat };
  derived: Derived<ContentOf<K>>[];
  /** The kind table's columns after the title: field or derived keys. */
  columns: string[];
  charts: ChartSpec<ContentOf<K>>[];
}

const level = { label: 'Level', unit: 'count' } as const;
const name = { label: 'Name', unit: 'text' } as const;
const cost = { label: 'Cost', unit: 'money' } as const;
const cooldown = { label: 'Cooldown', unit: 'seconds' } as const;

export const views: { [K in KindId]: KindView<K> } = {
  trees: {
    title: (tree) => tree.name,
    intro: 'What each tree grows, sells for and costs: the farm upgrades through them one level at a time.',
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
    columns: [
      'level',
      'plantingRegion',
      'growthTime',
      'logCount',
      'logValue',
      'harvestValue',
      'valuePerMinute',
      'saplingCost',
      'upgradeCost',
    ],
    charts: [
      {
        title: 'Money by level',
        unit: 'money',
        scale: 'log',
        series: [
          { label: 'Harvest value', value: harvestValue },
          { label: 'Upgrade cost', value: (tree) => tree.upgradeCost },
          { label: 'Sapling cost', value: (tree) => tree.saplingCost },
        ],
      },
      {
        title: 'Growth time by level',
        unit: 'seconds',
        scale: 'linear',
        series: [{ label: 'Growth time', value: (tree) => tree.growthTime }],
      },
    ],
  },
  cutters: {
    title: (cutter) => cutter.name,
    intro: 'Cutters fell your trees: a better one cuts a bigger share of a tree\u2019s logs per cut.',
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
    columns: ['level', 'cooldown', 'efficiency', 'cost', 'costPerEfficiencyPoint'],
    charts: [
      {
        title: 'Cost by level',
        unit: 'money',
        scale: 'log',
        series: [{ label: 'Cost', value: (cutter) => cutter.cost }],
      },
      {
        title: 'Efficiency by level',
        unit: 'percent',
        scale: 'linear',
        series: [
          { label: 'Most per cut', value: (cutter) => cutter.efficiency[1] },
          { label: 'Least per cut', value: (cutter) => cutter.efficiency[0] },
        ],
      },
    ],
  },
  gifts: {
    title: (gift) => `${capitalized(gift.name)} gift`,
    intro: 'Gifts hand out money and items: each reward is a range, and you get a random amount within it.',
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
    columns: ['level', 'money', 'logs', 'saplings', 'cutters', 'plots', 'vehicles', 'averageMoney'],
    charts: [
      {
        title: 'Money by gift',
        unit: 'money',
        scale: 'linear',
        series: [
          { label: 'Most money', value: (gift) => gift.money[1] },
          { label: 'Least money', value: (gift) => gift.money[0] },
        ],
      },
    ],
  },
  plots: {
    title: (plot) => `Level ${plot.level} plot`,
    intro: 'Plots are where trees grow: a better plot grows them faster.',
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
    columns: ['level', 'cost', 'growthSpeed', 'growthTimeFactor', 'costPerSpeedPercent'],
    charts: [
      { title: 'Cost by level', unit: 'money', scale: 'log', series: [{ label: 'Cost', value: (plot) => plot.cost }] },
      {
        title: 'Growth speed by level',
        unit: 'percent',
        scale: 'linear',
        series: [{ label: 'Growth speed', value: (plot) => plot.growthSpeed }],
      },
    ],
  },
  storages: {
    title: (storage) => storage.name,
    intro: 'Storages hold your logs until you sell them: capacity is how many fit.',
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
    columns: ['level', 'cost', 'capacity', 'costPerLog'],
    charts: [
      {
        title: 'Cost by level',
        unit: 'money',
        scale: 'log',
        series: [{ label: 'Cost', value: (storage) => storage.cost }],
      },
      {
        title: 'Capacity by level',
        unit: 'count',
        scale: 'log',
        series: [{ label: 'Capacity', value: (storage) => storage.capacity }],
      },
    ],
  },
  vehicles: {
    title: (vehicle) => vehicle.name,
    intro: 'Vehicles carry logs to market: capacity is logs per trip, cooldown the wait between trips.',
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
    columns: ['level', 'cooldown', 'cost', 'capacity', 'logsPerMinute', 'costPerLogPerMinute'],
    charts: [
      {
        title: 'Cost by level',
        unit: 'money',
        scale: 'log',
        series: [{ label: 'Cost', value: (vehicle) => vehicle.cost }],
      },
      {
        title: 'Logs delivered per minute by level',
        unit: 'count',
        scale: 'log',
        series: [{ label: 'Logs per minute', value: logsPerMinute }],
      },
    ],
  },
};

export function viewOf<K extends KindId>(kind: K): KindView<K> {
  return views[kind];
}
