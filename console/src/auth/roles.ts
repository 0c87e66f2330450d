/**
 * Which admin may use which screen (contract §10.1, §15). The permissions are the service's role
 * table (src/auth/roles.ts), copied because the console is a separate build; test/console/roles.test.ts
 * holds the copy equal to it. The navigation shows only the screens an admin's role may use, and each
 * screen's route refuses the others, so a normal click never meets FORBIDDEN.
 */
export const ADMIN_ROLES = ['owner', 'catalog_manager', 'support', 'viewer'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];

export const PERMISSIONS = {
  catalogRead: ['owner', 'catalog_manager', 'support', 'viewer'],
  catalogWrite: ['owner', 'catalog_manager'],
  customersRead: ['owner', 'support', 'viewer'],
  customersWrite: ['owner', 'support'],
  owner: ['owner'],
} as const satisfies Record<string, readonly AdminRole[]>;

export type Permission = keyof typeof PERMISSIONS;

/** Every screen of the console, in navigation order, with the permission it needs (none: every admin). */
export const SCREENS = [
  // adminItems, adminItem: every admin reads the catalogue.
  { id: 'items', path: '/items', permission: 'catalogRead' },
  { id: 'categories', path: '/categories', permission: 'catalogRead' },
  // Synonym groups and a trial search: reads for every admin (saving needs catalogWrite, per control).
  { id: 'search', path: '/search', permission: 'catalogRead' },
  // startImport: owner and catalog_manager.
  { id: 'import', path: '/import', permission: 'catalogWrite' },
  // admins, API keys, the audit log and webhooks: the owner's alone.
  { id: 'team', path: '/team', permission: 'owner' },
  { id: 'audit-log', path: '/audit-log', permission: 'owner' },
  { id: 'webhooks', path: '/webhooks', permission: 'owner' },
  // Own password, two-factor login and sessions: every admin.
  { id: 'account', path: '/account', permission: null },
] as const satisfies ReadonlyArray<{ id: string; path: string; permission: Permission | null }>;

export type ScreenId = (typeof SCREENS)[number]['id'];

export const mayDo = (role: AdminRole, permission: Permission): boolean =>
  (PERMISSIONS[permission] as readonly AdminRole[]).includes(role);

export function mayUse(role: AdminRole, screen: ScreenId): boolean {
  const { permission } = SCREENS.find((s) => s.id === screen)!;
  return permission === null || mayDo(role, permission);
}

/** The roles that may use a screen, for the message shown when a deep link leads elsewhere. */
export function rolesFor(screen: ScreenId): readonly AdminRole[] {
  const { permission } = SCREENS.find((s) => s.id === screen)!;
  return permission === null ? ADMIN_ROLES : PERMISSIONS[permission];
}
