// /planner/data.json: every tree's and plot's figures the planner page's script recalculates
// with, loaded once by the page (so the page itself does not grow with the number of trees).
import type { APIRoute } from 'astro';
import { plannerFile } from '../../wiki/planner.ts';
import { plannerSource } from '../../wiki/planner-source.ts';

export const GET: APIRoute = async () =>
  new Response(JSON.stringify(plannerFile(await plannerSource())), {
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
  });
