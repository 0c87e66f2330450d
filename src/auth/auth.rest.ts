/**
 * REST routes of contract §3: each row runs the GraphQL login operation with snake_case aliases.
 * Token responses say `Cache-Control: no-store` (RFC 6749 §5.1): no cache may keep a credential.
 */
import type { RestRoute } from '../http/rest-route.ts';
import { adminLoginInput, customerLoginInput, wxLoginInput } from './auth.schema.ts';

const noStore = () => ({ 'Cache-Control': 'no-store' });

const CUSTOMER_FIELDS = /* GraphQL */ `
  access_token: accessToken token_type: tokenType expires_in: expiresIn
  user { id username nickname avatar_url: avatarUrl }`;

export const authRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/auth/login',
    summary: 'Customer login with e-mail and password',
    tag: 'Authentication',
    document: /* GraphQL */ `
      mutation RestLogin($username: String!, $password: String!) {
        login(username: $username, password: $password) { ${CUSTOMER_FIELDS} }
      }`,
    input: { from: 'body', schema: customerLoginInput },
    result: 'login',
    headers: noStore,
    errors: ['INVALID_CREDENTIALS', 'ACCOUNT_DISABLED', 'RATE_LIMITED'],
  },
  {
    method: 'POST',
    path: '/api/v1/auth/wx-login',
    summary: 'Mini-program login with a wx.login() code (creates the customer on first use)',
    tag: 'Authentication',
    document: /* GraphQL */ `
      mutation RestWxLogin($code: String!) {
        wxLogin(code: $code) { ${CUSTOMER_FIELDS} is_new_user: isNewUser }
      }`,
    input: { from: 'body', schema: wxLoginInput },
    result: 'wxLogin',
    headers: noStore,
    errors: ['WX_CODE_INVALID', 'ACCOUNT_DISABLED', 'RATE_LIMITED', 'UPSTREAM_UNAVAILABLE', 'WX_LOGIN_NOT_CONFIGURED'],
  },
  {
    method: 'POST',
    path: '/api/v1/auth/refresh',
    summary: 'Exchange a customer token (expired by at most the refresh grace) for a new one',
    tag: 'Authentication',
    realm: 'customer',
    document: /* GraphQL */ `
      mutation RestRefresh {
        refreshToken { access_token: accessToken token_type: tokenType expires_in: expiresIn }
      }`,
    result: 'refreshToken',
    headers: noStore,
    errors: ['TOKEN_REVOKED'],
  },
  {
    method: 'POST',
    path: '/admin/api/auth/login',
    summary: 'Administrator login',
    tag: 'Authentication',
    document: /* GraphQL */ `
      mutation RestAdminLogin($username: String!, $password: String!) {
        adminLogin(username: $username, password: $password) {
          access_token: accessToken token_type: tokenType expires_in: expiresIn
          admin { id username role }
        }
      }`,
    input: { from: 'body', schema: adminLoginInput },
    result: 'adminLogin',
    headers: noStore,
    errors: ['INVALID_CREDENTIALS', 'ACCOUNT_DISABLED', 'RATE_LIMITED'],
  },
];
