/**
 * GraphQL multipart requests (https://github.com/jaydenseric/graphql-multipart-request-spec), read as
 * they arrive: the `operations` and `map` parts are parsed, and the operation runs as soon as its file's
 * part begins, the file handed to it as a stream (an UploadedFile) that the request's body feeds with
 * its back-pressure. startImport stages an import file as it reads it (imports.service.ts), so however
 * large the file, only the bytes in flight are in memory — as for REST's file body.
 *
 * Yoga's own parser reads the whole body into memory first (its `request.formData()`), which would hold
 * up to IMPORT_MAX_BYTES (200 MiB) per upload in a serving process. graphql-upload streams too, but
 * spools every file to a temporary file on disk first (so that several resolvers may read it) and
 * brings its own `Upload` scalar; one file read once needs neither. The multipart parsing is busboy's
 * (the parser graphql-upload, multer and @fastify/multipart use); what is ours is the spec's mapping.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { GraphQLError } from 'graphql';
import type { GraphQLParams } from 'graphql-yoga';
import { AppError } from '../errors/app-error.ts';
import type { UploadedFile } from '../transfer/uploaded-file.ts';

/** The form's parts: `operations` and `map` (in that order), then the one file. */
const LIMITS = { fields: 2, files: 1, parts: 3 };

/** The client's malformed request: 400, answered as graphql-js' own errors are (VALIDATION_FAILED). */
const malformed = (why: string) =>
  new GraphQLError(`Not a GraphQL multipart request: ${why}`, { extensions: { http: { status: 400 } } });

/**
 * A file part as the operation reads it: its bytes once, as they arrive. A second read would find them
 * gone, so it is refused rather than given an empty file.
 */
function uploadedFile(stream: Readable, mimeType: string, filename: string): UploadedFile & { name: string } {
  let taken = false;
  return {
    type: mimeType,
    name: filename,
    stream() {
      if (taken) throw new AppError('VALIDATION_FAILED', 'An uploaded file can be read by one argument only.');
      taken = true;
      return stream;
    },
  };
}

/**
 * Sets `value` at a dotted path of the operations (`variables.file`, `0.variables.file` for a batch),
 * as the map names it; never through a prototype.
 */
function setPath(target: unknown, path: string, value: unknown): void {
  const keys = path.split('.');
  let at = target as Record<string, unknown>;
  for (const [i, key] of keys.entries()) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') throw malformed(`map path "${path}"`);
    if (i === keys.length - 1) {
      at[key] = value;
      return;
    }
    const next = at[key];
    if (typeof next !== 'object' || next === null) throw malformed(`map path "${path}" names nothing`);
    at = next as Record<string, unknown>;
  }
}

const jsonPart = (name: string, value: string): unknown => {
  try {
    return JSON.parse(value);
  } catch {
    throw malformed(`the "${name}" part is not JSON`);
  }
};

const isMap = (v: unknown): v is Record<string, string[]> =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  Object.values(v).every((paths) => Array.isArray(paths) && paths.every((p) => typeof p === 'string'));

/**
 * Reads `req` (a multipart/form-data POST) up to its file's start: answers the operations with the file
 * in the variables the map names. `maxFieldBytes` bounds the operations and the map (past it: 413).
 * A request cut off while its file is read ends that file's stream with an error.
 */
export function parseStreamedMultipart(req: IncomingMessage, maxFieldBytes: number): Promise<GraphQLParams> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { ...LIMITS, fieldSize: maxFieldBytes } });
    } catch (err) {
      reject(malformed((err as Error).message));
      return;
    }
    let operations: unknown;
    let map: Record<string, string[]> | undefined;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      outcome();
    };
    const fail = (err: unknown) =>
      settle(() => {
        reject(err);
        // Nothing more of this body is wanted: what comes is dropped (the answer closes the connection).
        req.unpipe(parser);
        req.resume();
      });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) {
        return fail(
          new AppError('PAYLOAD_TOO_LARGE', `The multipart "${name}" part exceeds ${maxFieldBytes} bytes.`, {
            extensions: { http: { status: 413 } },
          }),
        );
      }
      try {
        if (name === 'operations' && operations === undefined) operations = jsonPart(name, value);
        else if (name === 'map' && operations !== undefined && map === undefined) {
          const parsed = jsonPart(name, value);
          if (!isMap(parsed)) throw malformed('"map" must be an object of path lists');
          // Known before any file arrives: the operation must not start on a request it cannot finish.
          if (Object.keys(parsed).length > LIMITS.files) throw malformed('one file at most');
          map = parsed;
        } else throw malformed(`unexpected part "${name}" (operations, then map, then the file)`);
      } catch (err) {
        fail(err);
      }
    });
    parser.on('file', (name, stream, info) => {
      // A file the operation never reads (refused before it read it): its end of the request is no one's.
      stream.on('error', () => {});
      const paths = map?.[name];
      if (settled || !paths) {
        stream.resume();
        if (!settled) fail(malformed(map ? `the file "${name}" is not in the map` : 'the file came before the map'));
        return;
      }
      try {
        const upload = uploadedFile(stream, info.mimeType, info.filename ?? name);
        for (const path of paths) setPath(operations, path, upload);
        settle(() => resolve(operations as GraphQLParams));
      } catch (err) {
        stream.resume();
        fail(err);
      }
    });
    for (const limit of ['fieldsLimit', 'filesLimit', 'partsLimit'] as const) {
      parser.on(limit, () => fail(malformed('one file at most, after the "operations" and "map" parts')));
    }
    // Past the file's start the operation is running: busboy ends the file's stream with the same
    // error (its destroy), so the operation's read of the file fails.
    parser.on('error', (err: Error) => fail(malformed(err.message)));
    parser.on('close', () => {
      if (operations === undefined) return fail(malformed('the "operations" part is missing'));
      // A request whose map names no file (an operation sent as a form): it runs as it is.
      if (!map || Object.keys(map).length === 0) return settle(() => resolve(operations as GraphQLParams));
      fail(malformed('a file the map names did not come'));
    });
    // Cut off (the client went away): a file being read ends with an error, not as if it were whole.
    req.on('close', () => {
      if (!req.complete) parser.destroy(new Error('The upload was cut off before its end.'));
    });
    req.pipe(parser);
  });
}
