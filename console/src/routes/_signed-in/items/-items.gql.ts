/**
 * The items screens' documents: one page of adminItems with its total from the same answer (never a
 * count per row), the categories for the pickers, the bulk writes, and one item for the editor.
 */
import { graphql, type ResultOf, type VariablesOf } from '../../../gql/graphql.ts';
import { ItemRow } from './-components/items-table.tsx';

export const AdminItems = graphql(
  `
  query AdminItems(
    $page: Int
    $limit: Int
    $keyword: String
    $status: [ItemStatus!]
    $sort: ItemSort
    $categoryId: Int
    $inStock: Boolean
    $minPrice: Money
    $maxPrice: Money
  ) {
    adminItems(
      page: $page
      limit: $limit
      keyword: $keyword
      status: $status
      sort: $sort
      categoryId: $categoryId
      inStock: $inStock
      minPrice: $minPrice
      maxPrice: $maxPrice
    ) {
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

export const SetItemsStatus = graphql(`
  mutation SetItemsStatus($ids: [Int!]!, $status: ItemStatus!) {
    setItemsStatus(ids: $ids, status: $status)
  }
`);

export const DeleteItems = graphql(`
  mutation DeleteItems($ids: [Int!]!) {
    deleteItems(ids: $ids)
  }
`);

export const ItemFields = graphql(`
  fragment ItemFields on Item {
    id
    name
    description
    categoryId
    price
    stock
    status
    publishAt
    unpublishAt
    handle
    version
    skus {
      id
      skuCode
      specs
      price
      stock
    }
    images {
      id
      url
      sortOrder
    }
  }
`);

export type EditedItem = ResultOf<typeof ItemFields>;

export const AdminItem = graphql(
  `
  query AdminItem($id: Int!) {
    adminItem(id: $id) {
      ...ItemFields
    }
  }
`,
  [ItemFields],
);

export const CreateItem = graphql(
  `
  mutation CreateItem($input: CreateItemInput!) {
    createItem(input: $input) {
      ...ItemFields
    }
  }
`,
  [ItemFields],
);

export const UpdateItem = graphql(
  `
  mutation UpdateItem($id: Int!, $input: UpdateItemInput!, $expectedVersion: Int) {
    updateItem(id: $id, input: $input, expectedVersion: $expectedVersion) {
      ...ItemFields
    }
  }
`,
  [ItemFields],
);

export const DeleteItem = graphql(`
  mutation DeleteItem($id: Int!, $expectedVersion: Int) {
    deleteItem(id: $id, expectedVersion: $expectedVersion)
  }
`);
