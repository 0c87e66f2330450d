/** A file an admin sends: a REST request's body, or a GraphQL multipart upload (a web File). */
export interface UploadedFile {
  /** Its media type, as sent (`text/csv`). */
  readonly type?: string;
  /** Its bytes, as they arrive: read once. */
  stream(): AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;
}

export const isUploadedFile = (v: unknown): v is UploadedFile =>
  typeof v === 'object' && v !== null && typeof (v as { stream?: unknown }).stream === 'function';
