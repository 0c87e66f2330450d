/** My account's documents: the own password, turning two-factor login off, the own sessions. */
import { graphql, type ResultOf } from '../../gql/graphql.ts';

export const ChangeAdminPassword = graphql(`
  mutation ChangeAdminPassword($currentPassword: String!, $newPassword: String!) {
    changeAdminPassword(currentPassword: $currentPassword, newPassword: $newPassword)
  }
`);

export const DisableTotp = graphql(`
  mutation DisableTotp($code: String!) {
    disableTotp(code: $code)
  }
`);

export const AdminSessions = graphql(`
  query AdminSessions {
    adminSessions {
      id
      createdAt
      lastUsedAt
      ip
      userAgent
      current
    }
  }
`);

export type AdminSession = ResultOf<typeof AdminSessions>['adminSessions'][number];

export const RevokeAdminSession = graphql(`
  mutation RevokeAdminSession($id: ID!) {
    revokeAdminSession(id: $id)
  }
`);

/** The sessions list's query key (console.md §2: [entity, 'list', …]). */
export const SESSIONS_KEY = ['session', 'list'] as const;
