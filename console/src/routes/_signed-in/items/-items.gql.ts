/** The items screen's documents: one page of adminItems, its total from the same answer (never a count per row). */
import { graphql, type VariablesOf } from '../../../gql/graphql.ts';
import { ItemRow } from './-components/items-table.tsx';

export const AdminItems = graphql(
  `
  query AdminItems($page: Int, $limit: Int, $keyword: String, $status: [ItemStatus!], $sort: ItemSort) {
    adminItems(page: $page, limit: $limit, keyword: $keyword, status: $status, sort: $sort) {
      items {
        id
        ...ItemRow
      }
      page
      limit
      total
      totalPages
    }
  }
`,
  [ItemRow],
);

export type AdminItemsVariables = VariablesOf<typeof AdminItems>;
