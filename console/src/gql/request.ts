/**
 * The console's one way to the service: POST /graphql with the admin's token. Screens never call
 * `fetch`; they call `request` through TanStack Query, passing its AbortSignal so a stale search is
 * cancelled (console.md §4.6). Two variants for what JSON cannot carry: `requestWithFiles` sends a
 * GraphQL multipart request (a file to import), and `download` fetches a file the service offers
 * only over REST (an import's errors file, an export) with the same token.
 */
import { print } from '@0no-co/graphql.web';
import { session } from '../auth/session.ts';
import { ApiError } from './errors.ts';
import type { TadaDocumentNode } from './graphql.ts';

interface GraphQLAnswer<R> {
  data?: R | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

/** A problem+json answer (contract §2): what REST, and /graphql before it reads a request, answer. */
interface Problem {
  code?: unknown;
  detail?: unknown;
  title?: unknown;
}

function authorized(headers: Record<string, string>): Record<string, string> {
  const token = session.token();
  return token ? { ...headers, authorization: `Bearer ${token}` } : headers;
}

async function send(url: string, init: RequestInit, signal?: AbortSignal): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ApiError('NETWORK', 'The service could not be reached.');
  }
}

/** The coded error of an answer that is problem+json, else undefined. */
function problemOf(body: unknown): ApiError | undefined {
  const problem = body as Problem | null;
  if (typeof problem?.code !== 'string') return undefined;
  const message = typeof problem.detail === 'string' ? problem.detail : String(problem.title ?? problem.code);
  return new ApiError(problem.code, message, problem as Record<string, unknown>);
}

async function answerOf<R>(res: Response): Promise<R> {
  let answer: GraphQLAnswer<R> & Problem;
  try {
    answer = (await res.json()) as GraphQLAnswer<R> & Problem;
  } catch {
    throw new ApiError('INTERNAL', `The service answered ${res.status} without JSON.`);
  }
  const first = answer.errors?.[0];
  if (first) {
    const extensions = first.extensions ?? {};
    throw new ApiError(typeof extensions.code === 'string' ? extensions.code : 'INTERNAL', first.message, extensions);
  }
  const problem = problemOf(answer);
  if (problem) throw problem;
  if (!answer.data) throw new ApiError('INTERNAL', `The service answered ${res.status} without data.`);
  return answer.data;
}

export async function request<R, V>(document: TadaDocumentNode<R, V>, variables: V, signal?: AbortSignal): Promise<R> {
  const res = await send(
    '/graphql',
    {
      method: 'POST',
      headers: authorized({ 'content-type': 'application/json', accept: 'application/json' }),
      body: JSON.stringify({ query: print(document), variables }),
    },
    signal,
  );
  return answerOf<R>(res);
}

/**
 * A GraphQL multipart request (github.com/jaydenseric/graphql-multipart-request-spec): the operation
 * with each File variable (top level) replaced by null, the map naming where each file goes, then
 * the files. The browser sets the multipart content type with its boundary. No CSRF header is
 * needed: the service runs no CSRF-prevention plugin (src/graphql/yoga.ts), and the request carries
 * the token in `Authorization`, which a page of another origin can neither read nor send here.
 */
export async function requestWithFiles<R, V extends Record<string, unknown>>(
  document: TadaDocumentNode<R, V>,
  variables: V,
  signal?: AbortSignal,
): Promise<R> {
  const files = Object.entries(variables).filter((entry): entry is [string, File] => entry[1] instanceof File);
  const form = new FormData();
  form.append(
    'operations',
    JSON.stringify({
      query: print(document),
      variables: { ...variables, ...Object.fromEntries(files.map(([name]) => [name, null])) },
    }),
  );
  form.append('map', JSON.stringify(Object.fromEntries(files.map(([name], i) => [String(i), [`variables.${name}`]]))));
  for (const [i, [, file]] of files.entries()) form.append(String(i), file, file.name);
  const res = await send(
    '/graphql',
    { method: 'POST', headers: authorized({ accept: 'application/json' }), body: form },
    signal,
  );
  return answerOf<R>(res);
}

/** A file the service answered, with the name its `Content-Disposition` gives (else `fallbackName`). */
export interface DownloadedFile {
  blob: Blob;
  filename: string;
}

/**
 * GETs a file from the service's own REST API (`/admin/api/…`) with the admin's token. A refusal is
 * problem+json and becomes an ApiError with its code, as a GraphQL error would.
 */
export async function download(path: string, fallbackName: string, signal?: AbortSignal): Promise<DownloadedFile> {
  if (!path.startsWith('/admin/api/')) throw new ApiError('INTERNAL', `Not a path of the service: ${path}`);
  const res = await send(path, { headers: authorized({}) }, signal);
  if (!res.ok) {
    const body = await res.json().catch(() => null);
    throw problemOf(body) ?? new ApiError('INTERNAL', `The service answered ${res.status}.`);
  }
  const disposition = res.headers.get('content-disposition') ?? '';
  const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallbackName;
  return { blob: await res.blob(), filename };
}
