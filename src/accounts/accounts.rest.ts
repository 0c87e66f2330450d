/**
 * REST routes of contract §8.1 and §10.4 for the logged-in customer's own account: GET and PATCH
 * /api/v1/me, and the sessions under /api/v1/me/sessions. Personal data: `no-store`, as every answer
 * that is not a public read (rest/run.ts).
 */
import type { RestRequest, RestRoute } from '../rest/route.ts';

/** A path's session id, as the operation takes it (an id that names no session of the caller is 404). */
const sessionIdOf = (req: RestRequest) => ({ id: req.params.id ?? '' });

/** The `user` object of contract §3.1. */
const USER_FIELDS = /* GraphQL */ `id username nickname avatar_url: avatarUrl`;

export const accountRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/me',
    summary: 'The logged-in customer',
    tag: 'Account',
    document: /* GraphQL */ `
      query RestMe {
        me { ${USER_FIELDS} }
      }`,
    result: 'me',
    errors: ['TOKEN_REVOKED'],
  },
  {
    method: 'PATCH',
    path: '/api/v1/me',
    summary: "Change the logged-in customer's nickname or avatar URL (omitted fields stay, null clears)",
    tag: 'Account',
    document: /* GraphQL */ `
      mutation RestUpdateMe($input: UpdateMeInput!) {
        updateMe(input: $input) { ${USER_FIELDS} }
      }`,
    input: { from: 'body', variable: 'input' },
    result: 'updateMe',
    errors: ['TOKEN_REVOKED'],
    example: { body: { nickname: 'Demo', avatar_url: 'https://cdn.example.com/avatars/demo.png' } },
  },
  {
    method: 'GET',
    path: '/api/v1/me/sessions',
    summary: "The logged-in customer's live sessions (devices), newest first; `current` marks this token's",
    tag: 'Account',
    document: /* GraphQL */ `
      query RestMySessions {
        sessions: mySessions { id created_at: createdAt last_used_at: lastUsedAt ip user_agent: userAgent current }
      }`,
    result: 'sessions',
    bodyIsData: true,
    errors: ['TOKEN_REVOKED'],
  },
  {
    method: 'DELETE',
    path: '/api/v1/me/sessions/:id',
    summary: "End one of the customer's sessions: its tokens answer TOKEN_REVOKED (another's, or none: 404)",
    tag: 'Account',
    document: /* GraphQL */ `
      mutation RestRevokeMySession($id: ID!) {
        revokeMySession(id: $id)
      }`,
    variables: sessionIdOf,
    pathParameter: {
      description: "A session's `id` from GET /api/v1/me/sessions (anything else, or another customer's, is 404).",
      schema: { type: 'string', format: 'uuid' },
    },
    result: 'revokeMySession',
    status: 204,
    errors: ['TOKEN_REVOKED', 'NOT_FOUND'],
    example: {
      params: { id: '00000000-0000-4000-8000-000000000000' },
      answers: 'NOT_FOUND',
      description:
        'Logged out on that device. The example id is a placeholder: put an id from GET /api/v1/me/sessions.',
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/me/sessions',
    summary: "End every session of the customer but this token's (log out other devices)",
    tag: 'Account',
    document: /* GraphQL */ `
      mutation RestRevokeMyOtherSessions {
        revokeMyOtherSessions
      }`,
    result: 'revokeMyOtherSessions',
    status: 204,
    errors: ['TOKEN_REVOKED'],
  },
];
