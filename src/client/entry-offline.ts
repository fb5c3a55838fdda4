// The package's offline entry (treefarm-data-client/offline): a downloaded bundle, verified
// against its manifest (and the SHA-256 the site published, when given), answering with the
// same interface and errors as the online client.
export {
  openBundle,
  verifyBundle,
  type BundleClient,
  type BundleOptions,
  type DigestOption,
  type VerifiedBundle,
} from './bundle.ts';
export { publishedSha256, type PublishedOptions } from './digest.ts';
export { BundleError, NetworkError, NotFoundError, TreefarmError } from './errors.ts';
