// The typed client of the tree farm data, online (createClient) or offline (openBundle),
// with the same methods: trees(search?), cutters(search?), gifts, plots, storages, vehicles,
// and the economics formulas.
// Published as the package in packages/client: the online entry and the offline one.
export * from './entry-online.ts';
export * from './entry-economics.ts';
export * from './entry-offline.ts';
