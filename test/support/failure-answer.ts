// The contract's answer to a failure a runtime catches ("Errors outside the expected" in
// docs/api-contract.md): the API's JSON envelope with a 500, the error headers and CORS, and
// no stack trace or path in it. Written out here, so each runtime's answer is held to the words.

export const INTERNAL_ERROR = {
  error: true,
  message: 'Internal error: this request could not be answered. Try again later.',
};

/** What a client sees of a failure, to compare with CONTRACT_FAILURE. */
export async function failureSeen(response: Response) {
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    cors: response.headers.get('access-control-allow-origin'),
    nosniff: response.headers.get('x-content-type-options'),
    cacheControl: response.headers.get('cache-control'),
    body: JSON.parse(text) as unknown,
    // A stack frame ("at fn (file:line)"), a source file, a folder of the build or of the bucket.
    internals: text.match(/\bat \S|\.ts\b|api\/|bodies\/|index\/|downloads\//g) ?? [],
  };
}

export const CONTRACT_FAILURE = {
  status: 500,
  contentType: 'application/json; charset=utf-8',
  cors: '*',
  nosniff: 'nosniff',
  cacheControl: 'no-store',
  body: INTERNAL_ERROR,
  internals: [],
};
