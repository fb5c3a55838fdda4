// How the wiki presents each kind: the figures every record shows (src/contract/figures.ts),
// and the wiki's own intro, kind table columns and charts.
import type { z } from 'zod';
import { harvestValue, logsPerMinute } from '../contract/economics.ts';
import { type Derived, figureDefinitions, type FigureDefinition } from '../contract/figures.ts';
import type { Kind, KindId } from '../schema/kinds.ts';
import type { Unit } from '../contract/format.ts';

export type { Derived, FieldFormat, Range } from '../contract/figures.ts';

export type ContentOf<K extends KindId> = z.infer<Extract<Kind, { id: K }>['contentSchema']>;

/** One record as the wiki sees it: its slug (the URL segment) and its content. */
export interface WikiEntry<K extends KindId> {
  slug: string;
  data: ContentOf<K>;
}

export interface ChartSpec<T> {
  title: string;
  unit: Unit;
  /** 'log' when the values span several powers of ten. */
  scale: 'log' | 'linear';
  series: { label: string; value: (data: T) => number }[];
}

export interface KindView<K extends KindId> {
  title: (data: ContentOf<K>) => string;
  fields: FigureDefinition<K>['fields'];
  derived: Derived<ContentOf<K>>[];
  /** A sentence about the kind, for the home page and the kind's page. */
  intro: string;
  /** The kind table's columns after the title: field or derived keys. */
  columns: string[];
  charts: ChartSpec<ContentOf<K>>[];
  /** The figures (up to four) a card shows beside its first chart (src/wiki/card-layout.ts): field or derived keys. */
  card: readonly string[];
}

export const views: { [K in KindId]: KindView<K> } = {
  trees: {
    ...figureDefinitions.trees,
    card: ['harvestValue', 'growthTime', 'valuePerMinute', 'upgradeCost'],
    intro: 'What each tree grows, sells for and costs: the farm upgrades through them one level at a time.',
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
    ...figureDefinitions.cutters,
    card: ['cost', 'cooldown', 'efficiency', 'cutsPerMinute'],
    intro: 'Cutters fell your trees: a better one cuts a bigger share of a tree\u2019s logs per cut.',
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
    ...figureDefinitions.gifts,
    card: ['money', 'logs', 'saplings', 'averageMoney'],
    intro: 'Gifts hand out money and items: each reward is a range, and you get a random amount within it.',
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
    ...figureDefinitions.plots,
    card: ['cost', 'growthSpeed', 'growthTimeFactor', 'costPerSpeedPercent'],
    intro: 'Plots are where trees grow: a better plot grows them faster.',
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
    ...figureDefinitions.storages,
    card: ['cost', 'capacity', 'costPerLog'],
    intro: 'Storages hold your logs until you sell them: capacity is how many fit.',
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
    ...figureDefinitions.vehicles,
    card: ['cost', 'capacity', 'cooldown', 'logsPerMinute'],
    intro: 'Vehicles carry logs to market: capacity is logs per trip, cooldown the wait between trips.',
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
