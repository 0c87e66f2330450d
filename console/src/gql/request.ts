/**
 * The console's one way to the service: POST /graphql with the admin's token. Screens never call
 * `fetch`; they call `request` through TanStack Query, passing its AbortSignal so a stale search is
 * cancelled (console.md §4.6).
 */
import { print } from '@0no-co/graphql.web';
import { session } from '../auth/session.ts';
import { ApiError } from './errors.ts';
import type { TadaDocumentNode } from './graphql.ts';

interface GraphQLAnswer<R> {
  data?: R | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

export async function request<R, V>(document: TadaDocumentNode<R, V>, variables: V, signal?: AbortSignal): Promise<R> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  const token = session.token();
  if (token) headers.authorization = `Bearer ${token}`;
  let res: Response;
  try {
    res = await fetch('/graphql', {
      method: 'POST',
      headers,
      body: JSON.stringify({ query: print(document), variables }),
      signal,
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ApiError('NETWORK', 'The service could not be reached.');
  }
  let answer: GraphQLAnswer<R>;
  try {
    answer = (await res.json()) as GraphQLAnswer<R>;
  } catch {
    throw new ApiError('INTERNAL', `The service answered ${res.status} without JSON.`);
  }
  const first = answer.errors?.[0];
  if (first) {
    const extensions = first.extensions ?? {};
    throw new ApiError(typeof extensions.code === 'string' ? extensions.code : 'INTERNAL', first.message, extensions);
  }
  if (!answer.data) throw new ApiError('INTERNAL', `The service answered ${res.status} without data.`);
  return answer.data;
}
