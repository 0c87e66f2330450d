/**
 * Admin roles (contract §10.1): the one table of which role may do what. Fields declare the
 * permission they need (`authScopes: { catalogWrite: true }`, scopes.ts); the OpenAPI and GraphQL docs,
 * the role × operation test and the FORBIDDEN detail all read this table, so a rule is written once.
 */
import { AppError } from '../errors/app-error.ts';

export const ADMIN_ROLES = ['owner', 'catalog_manager', 'support', 'viewer'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];

export const isAdminRole = (value: unknown): value is AdminRole => ADMIN_ROLES.includes(value as AdminRole);

/** What each role is for, as the docs describe it. */
export const ROLE_DESCRIPTIONS: Record<AdminRole, string> = {
  owner: 'Everything, and alone: admins (create, role, disable, sessions), API keys and the audit log.',
  catalog_manager: 'Items, categories and synonyms (create, update, delete) and every admin read of the catalogue.',
  support: "Customers (read, create, disable and enable, revoke their sessions) and the catalogue's admin reads.",
  viewer: 'Admin reads of the catalogue and of customers; no writes.',
};

/** The permissions an admin operation can need, and the roles that hold each. */
export const PERMISSIONS = {
  /** Admin reads of the catalogue (synonym groups …). */
  catalogRead: ['owner', 'catalog_manager', 'support', 'viewer'],
  /** Items, categories, synonym groups: create, update, delete. */
  catalogWrite: ['owner', 'catalog_manager'],
  /** Customer accounts: list and read. */
  customersRead: ['owner', 'support', 'viewer'],
  /** Customer accounts: create, disable and enable, revoke sessions. */
  customersWrite: ['owner', 'support'],
  /** Admin accounts, API keys, the audit log. */
  owner: ['owner'],
} as const satisfies Record<string, readonly AdminRole[]>;

export type Permission = keyof typeof PERMISSIONS;

export const mayDo = (role: AdminRole, permission: Permission): boolean =>
  (PERMISSIONS[permission] as readonly AdminRole[]).includes(role);

/** 403 naming the roles the operation needs (contract §2: `detail` names the role needed). */
export const forbidden = (permission: Permission, role: AdminRole) =>
  new AppError(
    'FORBIDDEN',
    `This needs the role ${PERMISSIONS[permission].join(' or ')}; the caller's role is ${role}.`,
  );
