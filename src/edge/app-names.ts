// The names of the edge's apps (apps.ts mounts each one), apart from the seam so the core's
// decisions (decision.ts) name them without importing it: the seam imports those decisions.
export type AppName = 'mcp' | 'discord';
