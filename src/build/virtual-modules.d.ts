// The modules the build's integration serves the content collections and the pages (wiki-data.ts).
declare module 'virtual:treefarm/records' {
  const records: import('./wiki-data.ts').CollectionRecords;
  export default records;
}

declare module 'virtual:treefarm/build' {
  const site: import('./wiki-data.ts').SiteData;
  export default site;
}
