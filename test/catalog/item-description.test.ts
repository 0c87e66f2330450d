/**
 * Contract §8.2: items carry a `description` (<= 5000 characters, default ""), optional on creation
 * and update, returned everywhere an Item is — REST and GraphQL alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, gqlCode, loginAsAdmin } from '../helpers/accounts.ts';
import { errorFields, makeCategory, makeItem } from '../helpers/catalog.ts';
import { CREATE_ITEM, ITEM_QUERY, itemBody, itemInput, postItem, UPDATE_ITEM } from '../helpers/catalog-admin.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

let app: TestApp;
let token: string;
let categoryId: number;
beforeAll(async () => {
  app = await startTestApp();
  token = await loginAsAdmin(app);
  categoryId = (await makeCategory(app, { name: 'Described' })).id;
});
afterAll(() => app.close());

const TEXT = '  Waterproof leather.\nResoleable — 防水 ✓  ';

describe('description on creation', () => {
  it('when a REST item is created without a description, then it is "" in the answer and in every read', async () => {
    const res = await postItem(app, token, itemBody(categoryId, { name: 'No description' }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.description).toBe('');
    const id = res.body.id as number;
    expect((await app.request(`/api/v1/items/${id}`)).body.description).toBe('');
    const list = await app.request(`/api/v1/items?category_id=${categoryId}`);
    expect(list.body.items.find((i: { id: number }) => i.id === id).description).toBe('');
    const gql = await app.graphql(ITEM_QUERY, { id });
    expect(gql.body.data.item.description).toBe('');
  });

  it('when a REST item is created with a description, then it is kept exactly as written (not trimmed)', async () => {
    const res = await postItem(app, token, itemBody(categoryId, { name: 'Described boot', description: TEXT }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.description).toBe(TEXT);
    const detail = await app.request(`/api/v1/items/${res.body.id}`);
    expect(detail.body).toEqual(res.body);
    const gql = await app.graphql(ITEM_QUERY, { id: res.body.id });
    expect(gql.body.data.item.description).toBe(TEXT);
  });

  it('when GraphQL createItem gets a description of exactly 5000 characters, then it is stored', async () => {
    const description = 'é'.repeat(5000);
    const res = await app.graphql(CREATE_ITEM, { input: itemInput(categoryId, { description }) }, { token });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.createItem.description).toBe(description);
  });

  it('when a description is too long, not a string or holds U+0000, then 400 VALIDATION_FAILED on description', async () => {
    for (const description of ['x'.repeat(5001), 42, ['a'], 'bad\u0000text']) {
      const res = await postItem(app, token, itemBody(categoryId, { description }));
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(errorFields(res.body.errors)).toEqual(['description']);
    }
    const gql = await app.graphql(
      CREATE_ITEM,
      { input: itemInput(categoryId, { description: 'x'.repeat(5001) }) },
      { token },
    );
    expect(gqlCode(gql)).toBe('VALIDATION_FAILED');
    expect(errorFields(gql.body.errors[0].extensions.errors)).toEqual(['description']);
  });

  it('when description is null on creation, then it is ""', async () => {
    const res = await postItem(app, token, itemBody(categoryId, { description: null }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.description).toBe('');
  });
});

describe('description on update', () => {
  it('when updateItem sets a description, then it changes; omitted, it stays; "" clears it', async () => {
    const item = await makeItem(app, { categoryId, name: 'To describe' });
    expect(item.description).toBe('');
    const set = await app.graphql(UPDATE_ITEM, { id: item.id, input: { description: 'First words' } }, { token });
    expect(set.body.errors).toBeUndefined();
    expect(set.body.data.updateItem.description).toBe('First words');
    const other = await app.graphql(UPDATE_ITEM, { id: item.id, input: { stock: 3 } }, { token });
    expect(other.body.data.updateItem).toMatchObject({ description: 'First words', stock: 3 });
    expect((await app.request(`/api/v1/items/${item.id}`)).body.description).toBe('First words');
    const cleared = await app.graphql(UPDATE_ITEM, { id: item.id, input: { description: '' } }, { token });
    expect(cleared.body.data.updateItem.description).toBe('');
  });

  it('when updateItem gets a description over 5000 characters, then VALIDATION_FAILED and nothing changes', async () => {
    const item = await makeItem(app, { categoryId, description: 'Kept' });
    const res = await app.graphql(UPDATE_ITEM, { id: item.id, input: { description: 'y'.repeat(5001) } }, { token });
    expect(gqlCode(res)).toBe('VALIDATION_FAILED');
    expect(errorFields(res.body.errors[0].extensions.errors)).toEqual(['description']);
    expect((await app.request(`/api/v1/items/${item.id}`)).body.description).toBe('Kept');
  });
});
