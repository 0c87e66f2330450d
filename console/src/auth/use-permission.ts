/** Whether the signed-in admin's role holds a permission: write controls show only where it does (contract §15). */
import { useSuspenseQuery } from '@tanstack/react-query';
import { mayDo, type Permission } from './roles.ts';
import { adminMeQuery } from './session.gql.ts';

export function usePermission(permission: Permission): boolean {
  const { data } = useSuspenseQuery(adminMeQuery);
  return data.adminMe ? mayDo(data.adminMe.role, permission) : false;
}
