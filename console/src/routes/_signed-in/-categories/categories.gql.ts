/**
 * The categories' documents: the flat list — the one every screen reads (the tree, the items' and
 * the export's category pickers), under one query key — and the category screen's three writes.
 */
import { graphql, type ResultOf, type VariablesOf } from '../../../gql/graphql.ts';
import { request } from '../../../gql/request.ts';

export const Categories = graphql(`
  query Categories {
    categories {
      id
      name
      parentId
      sortOrder
    }
  }
`);

export type Category = ResultOf<typeof Categories>['categories'][number];

export const CreateCategory = graphql(`
  mutation CreateCategory($input: CategoryInput!) {
    createCategory(input: $input) {
      id
      name
      parentId
      sortOrder
    }
  }
`);

/** Renames, moves or re-orders: the service sets all three fields, so each call sends all three. */
export const UpdateCategory = graphql(`
  mutation UpdateCategory($id: Int!, $input: CategoryInput!) {
    updateCategory(id: $id, input: $input) {
      id
      name
      parentId
      sortOrder
    }
  }
`);

export const DeleteCategory = graphql(`
  mutation DeleteCategory($id: Int!) {
    deleteCategory(id: $id)
  }
`);

export type CategoryInputVariables = VariablesOf<typeof CreateCategory>['input'];

/** The query key of the list (console.md §2: `[entity, 'list', variables]`). */
export const CATEGORY_LIST_KEY = ['category', 'list'] as const;

/** The list's query: the same key and document wherever categories are shown. */
export const categoriesQuery = {
  queryKey: CATEGORY_LIST_KEY,
  queryFn: ({ signal }: { signal: AbortSignal }) => request(Categories, {}, signal),
};
