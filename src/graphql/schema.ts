/** Assembles the schema: importing a domain module registers its types and fields. */
import { builder } from './builder.ts';
import './scalars.ts';
import '../catalog/category.graphql.ts';
import '../catalog/item.graphql.ts';
import '../catalog/item-admin.graphql.ts';
import '../catalog/item-status.graphql.ts';
import '../catalog/synonyms.graphql.ts';
import '../catalog/stock.graphql.ts';
import '../search/suggestions.graphql.ts';
import '../accounts/accounts.graphql.ts';
import '../accounts/own-account.graphql.ts';
import '../accounts/login.graphql.ts';
import '../accounts/admin-account.graphql.ts';
import '../accounts/sessions.graphql.ts';
import '../accounts/api-keys.graphql.ts';
import '../audit/audit.graphql.ts';
import '../transfer/imports.graphql.ts';
import '../events/events.graphql.ts';
import '../events/webhooks.graphql.ts';

export const schema = builder.toSchema({ sortSchema: false });
