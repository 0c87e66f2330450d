/** The documents of signing in and out, and of who is signed in. */
import type { QueryClient } from '@tanstack/react-query';
import { graphql, type ResultOf } from '../gql/graphql.ts';
import { request } from '../gql/request.ts';
import { session } from './session.ts';

export const AdminLogin = graphql(`
  mutation AdminLogin($username: String!, $password: String!, $otp: String) {
    adminLogin(username: $username, password: $password, otp: $otp) {
      accessToken
      expiresIn
      admin {
        totpEnrollmentRequired
      }
    }
  }
`);

export const AdminMe = graphql(`
  query AdminMe {
    adminMe {
      id
      username
      role
      totpEnabled
      totpEnrollmentRequired
    }
  }
`);

export type SignedInAdmin = NonNullable<ResultOf<typeof AdminMe>['adminMe']>;

const CurrentSessions = graphql(`
  query CurrentSessions {
    adminSessions {
      id
      current
    }
  }
`);

const RevokeSession = graphql(`
  mutation RevokeSession($id: ID!) {
    revokeAdminSession(id: $id)
  }
`);

export const adminMeQuery = {
  queryKey: ['admin', 'me'],
  queryFn: ({ signal }: { signal: AbortSignal }) => request(AdminMe, {}, signal),
  staleTime: 60_000,
} as const;

/** Ends the session on the service (its tokens stop working), then forgets the token here. */
export async function signOut(queryClient: QueryClient): Promise<void> {
  try {
    const { adminSessions } = await request(CurrentSessions, {});
    const current = adminSessions.find((s) => s.current);
    if (current) await request(RevokeSession, { id: current.id });
  } catch {
    // Already expired or revoked: forgetting it is all there is to do.
  } finally {
    session.clear();
    queryClient.clear();
  }
}

/** A console path to return to after signing in; anything else (another origin, a scheme) is ignored. */
export const safeRedirect = (redirect: string | undefined): string =>
  redirect && /^\/(?![/\\])/.test(redirect) && !redirect.startsWith('/login') ? redirect : '/items';
