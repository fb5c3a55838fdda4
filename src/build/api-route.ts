// One route of a scope's index and the body it names: what api.ts lists and the suggestion
// index (suggest-index.ts) adds to, apart from both so neither imports the other.
export interface ApiRoute {
  /** The route's key in its scope's index. */
  route: string;
  body: string;
  /** Read by the edge to make an answer, never sent as it is: stored without br and gzip variants. */
  indexOnly?: boolean;
}
