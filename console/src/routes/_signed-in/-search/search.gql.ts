/**
 * The search screen's documents: synonym groups and their writes, and the storefront's own search
 * (`items`, public) with its facets, so the trial shows what a shopper would get.
 */
import { graphql, type ResultOf, type VariablesOf } from '../../../gql/graphql.ts';

export const SynonymGroups = graphql(`
  query SynonymGroups {
    synonymGroups {
      id
      terms
    }
  }
`);

export const SaveSynonymGroup = graphql(`
  mutation SaveSynonymGroup($id: Int, $terms: [String!]!) {
    saveSynonymGroup(id: $id, terms: $terms) {
      id
      terms
    }
  }
`);

export const DeleteSynonymGroup = graphql(`
  mutation DeleteSynonymGroup($id: Int!) {
    deleteSynonymGroup(id: $id)
  }
`);

/** One page of the public search with every facet (facets are computed only when selected). */
export const TrialSearch = graphql(`
  query TrialSearch(
    $keyword: String
    $categoryId: Int
    $minPrice: Money
    $maxPrice: Money
    $inStock: Boolean
    $specs: [SpecFilter!]
    $limit: Int
  ) {
    items(
      keyword: $keyword
      categoryId: $categoryId
      minPrice: $minPrice
      maxPrice: $maxPrice
      inStock: $inStock
      specs: $specs
      limit: $limit
    ) {
      total
      items {
        id
        name
        price
        stock
        category {
          name
        }
      }
      facets {
        categories {
          id
          name
          parentId
          count
        }
        price {
          min
          max
          buckets {
            from
            to
            count
          }
        }
        specs {
          name
          values {
            value
            count
          }
        }
        inStock
      }
    }
  }
`);

export type TrialVariables = VariablesOf<typeof TrialSearch>;
export type TrialFacets = ResultOf<typeof TrialSearch>['items']['facets'];

export const SYNONYM_LIST_KEY = ['synonym-group', 'list'] as const;
