/**
 * Response compression (contract §7.5): answers over 1 KiB go out as br or gzip (deflate for a client
 * that accepts nothing else) when the client accepts it. An answer that already carries
 * `Content-Encoding` — compressed once and kept (prepared-body.ts) — is left as is.
 */
import compression from 'compression';

/** Answers of at most this many bytes are sent as they are: compressing them saves less than it costs. */
export const COMPRESS_OVER_BYTES = 1024;

export const compressLargeAnswers = compression({
  // compression's threshold is the smallest size it compresses.
  threshold: COMPRESS_OVER_BYTES + 1,
});
