// The package's offline entry (treefarm-data-client/offline): a downloaded bundle, verified
// against its manifest, answering with the same interface and errors as the online client.
export { openBundle, verifyBundle, type BundleClient, type VerifiedBundle } from './bundle.ts';
export { BundleError, NotFoundError, TreefarmError } from './errors.ts';
