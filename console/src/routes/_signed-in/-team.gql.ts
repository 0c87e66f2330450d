/** The team screen's documents: admins (create, role, disable, sessions) and API keys (create, revoke). */
import { graphql, type ResultOf } from '../../gql/graphql.ts';

export const Admins = graphql(`
  query Admins {
    admins {
      id
      username
      role
      disabled
      totpEnabled
      createdAt
    }
  }
`);

export type TeamAdmin = ResultOf<typeof Admins>['admins'][number];

export const CreateAdmin = graphql(`
  mutation CreateAdmin($input: CreateAdminInput!) {
    createAdmin(input: $input) {
      id
      username
    }
  }
`);

export const SetAdminRole = graphql(`
  mutation SetAdminRole($id: Int!, $role: AdminRole!) {
    setAdminRole(id: $id, role: $role) {
      id
      role
    }
  }
`);

export const SetAdminDisabled = graphql(`
  mutation SetAdminDisabled($id: Int!, $disabled: Boolean!) {
    setAdminDisabled(id: $id, disabled: $disabled) {
      id
      disabled
    }
  }
`);

export const RevokeAllSessionsOfAdmin = graphql(`
  mutation RevokeAllSessionsOfAdmin($adminId: Int!) {
    revokeAllSessionsOfAdmin(adminId: $adminId)
  }
`);

export const ApiKeys = graphql(`
  query ApiKeys {
    apiKeys {
      id
      name
      role
      prefix
      createdAt
      expiresAt
      lastUsedAt
      revokedAt
      createdBy {
        username
      }
    }
  }
`);

export type TeamApiKey = ResultOf<typeof ApiKeys>['apiKeys'][number];

export const CreateApiKey = graphql(`
  mutation CreateApiKey($input: CreateApiKeyInput!) {
    createApiKey(input: $input) {
      apiKey {
        id
        name
      }
      secret
    }
  }
`);

export const RevokeApiKey = graphql(`
  mutation RevokeApiKey($id: Int!) {
    revokeApiKey(id: $id)
  }
`);

/** Query keys (console.md §2: [entity, 'list', …]). */
export const ADMINS_KEY = ['admin', 'list'] as const;
export const API_KEYS_KEY = ['api-key', 'list'] as const;
