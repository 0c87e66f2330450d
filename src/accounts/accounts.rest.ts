/**
 * REST routes of contract §8.1 for the logged-in customer's own account: GET and PATCH /api/v1/me.
 * Personal data: `no-store`, as every answer that is not a public read (rest/run.ts).
 */
import type { RestRoute } from '../rest/route.ts';

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
];
