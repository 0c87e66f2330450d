/**
 * REST routes of contract §3: each row runs the GraphQL login operation with snake_case aliases.
 * Token responses say `Cache-Control: no-store` (RFC 6749 §5.1), as every answer that is not a
 * public read does (rest/run.ts): no cache may keep a credential.
 */
import type { RestRoute } from '../rest/route.ts';

/**
 * The accounts of the README's quick tour, used by the /docs examples: the bootstrap admin started
 * with `ADMIN_PASSWORD=demo-admin-password`, and the customer the tour registers.
 */
export const DEMO_ADMIN = { username: 'admin', password: 'demo-admin-password' } as const;
export const DEMO_CUSTOMER = { username: 'demo@example.com', password: 'demo-password' } as const;
/** The sign-up example: a placeholder address, not the tour's customer (who exists once the tour ran). */
export const NEW_CUSTOMER = {
  username: 'change-me@example.com',
  password: 'change-me-password',
  nickname: 'New customer',
} as const;

const CUSTOMER_FIELDS = /* GraphQL */ `
  access_token: accessToken token_type: tokenType expires_in: expiresIn
  user { id username nickname avatar_url: avatarUrl }`;

export const loginRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/auth/register',
    summary: 'Customer sign-up with e-mail and password; answers as a login does (logged in at once)',
    tag: 'Authentication',
    document: /* GraphQL */ `
      mutation RestRegister($input: RegisterInput!) {
        register(input: $input) { ${CUSTOMER_FIELDS} }
      }`,
    input: { from: 'body', variable: 'input' },
    result: 'register',
    status: 201,
    errors: ['RATE_LIMITED'],
    example: {
      body: NEW_CUSTOMER,
      description:
        'Registered and logged in. The username is a placeholder: change it before each "Try it out" — an address ' +
        'that is taken (by an earlier run) is 400 VALIDATION_FAILED on `username`.',
    },
  },
  {
    method: 'POST',
    path: '/api/v1/auth/logout',
    summary: 'Log out: revokes the session of the customer token (every token of it stops working)',
    tag: 'Authentication',
    document: /* GraphQL */ `
      mutation RestLogout {
        logout
      }`,
    result: 'logout',
    status: 204,
    errors: ['TOKEN_REVOKED'],
  },
  {
    method: 'POST',
    path: '/api/v1/auth/login',
    summary: 'Customer login with e-mail and password',
    tag: 'Authentication',
    document: /* GraphQL */ `
      mutation RestLogin($username: String!, $password: String!) {
        login(username: $username, password: $password) { ${CUSTOMER_FIELDS} }
      }`,
    input: { from: 'body' },
    result: 'login',
    errors: ['INVALID_CREDENTIALS', 'ACCOUNT_DISABLED', 'RATE_LIMITED'],
    example: { body: DEMO_CUSTOMER, description: 'Logged in (the demo customer of the README quick tour).' },
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
    input: { from: 'body' },
    result: 'wxLogin',
    // A real code comes from wx.login() in the mini-program, valid once for 5 minutes.
    example: {
      body: { code: '0a3Xk1Ga1zBQeK0Lpb0Ga3HjGS2Xk1GB' },
      description: 'Logged in; the customer is created on first use.',
    },
    needsConfiguration: ['WX_APPID', 'WX_SECRET'],
    errors: ['WX_CODE_INVALID', 'ACCOUNT_DISABLED', 'RATE_LIMITED', 'UPSTREAM_UNAVAILABLE', 'WX_LOGIN_NOT_CONFIGURED'],
  },
  {
    method: 'POST',
    path: '/api/v1/auth/refresh',
    summary: 'Exchange a customer token (expired by at most the refresh grace) for a new one',
    tag: 'Authentication',
    document: /* GraphQL */ `
      mutation RestRefresh {
        refreshToken { access_token: accessToken token_type: tokenType expires_in: expiresIn }
      }`,
    result: 'refreshToken',
    errors: ['TOKEN_REVOKED'],
  },
  {
    method: 'POST',
    path: '/admin/api/auth/login',
    summary: 'Administrator login',
    tag: 'Authentication',
    document: /* GraphQL */ `
      mutation RestAdminLogin($username: String!, $password: String!, $otp: String) {
        adminLogin(username: $username, password: $password, otp: $otp) {
          access_token: accessToken token_type: tokenType expires_in: expiresIn
          admin { id username role }
        }
      }`,
    input: { from: 'body' },
    result: 'adminLogin',
    errors: ['INVALID_CREDENTIALS', 'OTP_REQUIRED', 'OTP_INVALID', 'ACCOUNT_DISABLED', 'RATE_LIMITED'],
    example: { body: DEMO_ADMIN, description: 'Logged in (the bootstrap admin, as the README quick tour starts it).' },
  },
];
