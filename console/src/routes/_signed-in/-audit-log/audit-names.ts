/** The audit log's kinds of actor and target (contract §10.2), named as the console shows them. */
import type { MessageDescriptor } from '@lingui/core';
import { msg } from '@lingui/core/macro';

export const ACTOR_TYPES = ['admin', 'api_key', 'cli', 'anonymous'] as const;
export const TARGET_TYPES = ['item', 'category', 'customer', 'admin', 'api_key', 'synonym_group'] as const;

export const ACTOR_TYPE_NAMES: Record<(typeof ACTOR_TYPES)[number], MessageDescriptor> = {
  admin: msg`Admin`,
  api_key: msg`API key`,
  cli: msg`Command line`,
  anonymous: msg`Anonymous (a failed sign-in)`,
};

export const TARGET_TYPE_NAMES: Record<(typeof TARGET_TYPES)[number], MessageDescriptor> = {
  item: msg`Item`,
  category: msg`Category`,
  customer: msg`Customer`,
  admin: msg`Admin`,
  api_key: msg`API key`,
  synonym_group: msg`Synonym group`,
};

/** Every action the service writes (contract §10.2), offered as suggestions; the filter is exact. */
export const ACTIONS = [
  'item.create',
  'item.update',
  'item.delete',
  'item.status',
  'item.stock',
  'category.create',
  'category.update',
  'category.delete',
  'customer.create',
  'customer.disable',
  'customer.enable',
  'customer.password',
  'customer.revoke_sessions',
  'admin.create',
  'admin.role',
  'admin.disable',
  'admin.enable',
  'admin.password',
  'admin.totp_enable',
  'admin.totp_disable',
  'admin.totp_reset',
  'admin.revoke_sessions',
  'admin.login',
  'admin.login_failed',
  'api_key.create',
  'api_key.revoke',
  'synonym_group.save',
  'synonym_group.delete',
] as const;
