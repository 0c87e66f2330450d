/** The admin Item in REST's names: every item answer of the REST routes, and the events' `data.item` (§14.1). */
export const REST_ITEM_FIELDS = /* GraphQL */ `
  id name description category_id: categoryId category { id name } price stock
  skus { id sku_code: skuCode specs price stock }
  images { id url sort_order: sortOrder }
  status publish_at: publishAt unpublish_at: unpublishAt handle version
  created_at: createdAt updated_at: updatedAt`;
