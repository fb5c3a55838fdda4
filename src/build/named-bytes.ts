// A file as the bundles are made of it (bundles.ts, with csv.ts and sqlite.ts), apart from
// bundles.ts so the files it gathers do not import it back.
/** A file by its path (inside a bundle, or below dist/downloads/). */
export interface NamedBytes {
  name: string;
  bytes: Uint8Array;
}
