/** The categories screen's documents: the flat list (the tree is built here) and the three writes. */
import { graphql, type VariablesOf } from '../../../gql/graphql.ts';

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
