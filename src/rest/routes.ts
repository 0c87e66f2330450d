/** Every REST route of the service, by domain. Adding a route is adding a row to its domain's table. */
import { accountRoutes } from '../accounts/accounts.rest.ts';
import { loginRoutes } from '../accounts/login.rest.ts';
import { categoryRoutes } from '../catalog/category.rest.ts';
import { itemRoutes } from '../catalog/item.rest.ts';
import { itemAdminRoutes } from '../catalog/item-admin.rest.ts';
import { stockRoutes } from '../catalog/stock.rest.ts';
import { eventRoutes } from '../events/events.rest.ts';
import { suggestionRoutes } from '../search/suggestions.rest.ts';
import { importRoutes } from '../transfer/imports.rest.ts';
import type { RestRoute } from './route.ts';

export const restRoutes: RestRoute[] = [
  ...itemRoutes,
  ...stockRoutes,
  ...itemAdminRoutes,
  ...categoryRoutes,
  ...importRoutes,
  ...eventRoutes,
  ...suggestionRoutes,
  ...loginRoutes,
  ...accountRoutes,
];
