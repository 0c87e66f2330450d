/**
 * Page objects of the items screens (console.md §3): the list with its filters and bulk actions, and
 * the item editor. Everything is found by its label or role, in the language the page speaks
 * (`Labels`: English by default, `ZH` for 中文).
 */
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

export const EN = {
  items: 'Items',
  search: 'Search items',
  minPrice: 'Lowest price (yuan)',
  maxPrice: 'Highest price (yuan)',
  searchButton: 'Search',
  category: 'Category',
  inStock: 'In stock only',
  newItem: 'New item',
  selectAll: 'Select all items on this page',
  select: (name: string) => `Select ${name}`,
  newStatus: 'New status',
  setStatus: 'Set status',
  deleteSelected: 'Delete selected',
  cancel: 'Cancel',
  name: 'Name',
  handle: 'Handle',
  description: 'Description',
  price: 'Price (yuan)',
  stock: 'Stock',
  status: 'Status',
  publishAt: 'Publish at',
  unpublishAt: 'Unpublish at',
  specName: (n: number) => `Spec ${n} name`,
  specValues: (n: number) => `Spec ${n} values`,
  addSpec: 'Add spec',
  generate: 'Generate SKUs',
  selectAllSkus: 'Select all SKUs',
  selectSku: (n: number) => `Select SKU ${n}`,
  fillPrice: 'Price for the selected SKUs (yuan)',
  fillStock: 'Stock for the selected SKUs',
  fill: 'Fill selected SKUs',
  skuPrice: (n: number) => `Price of SKU ${n}`,
  skuStock: (n: number) => `Stock of SKU ${n}`,
  imageUrl: (n: number) => `Image ${n} URL`,
  addImage: 'Add image',
  moveUp: (n: number) => `Move image ${n} up`,
  moveDown: (n: number) => `Move image ${n} down`,
  create: 'Create item',
  save: 'Save changes',
  deleteItem: 'Delete item',
  overwrite: 'Overwrite',
  reload: 'Reload',
};

export type Labels = typeof EN;

export const ZH: Labels = {
  items: '商品',
  search: '搜索商品',
  minPrice: '最低价（元）',
  maxPrice: '最高价（元）',
  searchButton: '搜索',
  category: '分类',
  inStock: '仅看有货',
  newItem: '新建商品',
  selectAll: '选择本页全部商品',
  select: (name) => `选择 ${name}`,
  newStatus: '新状态',
  setStatus: '设置状态',
  deleteSelected: '删除所选',
  cancel: '取消',
  name: '名称',
  handle: '标识（handle）',
  description: '描述',
  price: '价格（元）',
  stock: '库存',
  status: '状态',
  publishAt: '发布时间',
  unpublishAt: '下架时间',
  specName: (n) => `规格 ${n} 名称`,
  specValues: (n) => `规格 ${n} 取值`,
  addSpec: '添加规格',
  generate: '生成 SKU',
  selectAllSkus: '选择全部 SKU',
  selectSku: (n) => `选择 SKU ${n}`,
  fillPrice: '所选 SKU 的价格（元）',
  fillStock: '所选 SKU 的库存',
  fill: '填充所选 SKU',
  skuPrice: (n) => `SKU ${n} 的价格`,
  skuStock: (n) => `SKU ${n} 的库存`,
  imageUrl: (n) => `图片 ${n} 的网址`,
  addImage: '添加图片',
  moveUp: (n) => `图片 ${n} 上移`,
  moveDown: (n) => `图片 ${n} 下移`,
  create: '创建商品',
  save: '保存修改',
  deleteItem: '删除商品',
  overwrite: '覆盖',
  reload: '重新加载',
};

/** A label matched whole, so "Stock" never finds "Stock of SKU 1". */
const exact = { exact: true } as const;

export class ItemListPage {
  readonly table: Locator;
  readonly rows: Locator;
  readonly status: Locator;
  readonly dialog: Locator;

  constructor(
    readonly page: Page,
    readonly l: Labels = EN,
  ) {
    this.table = page.getByRole('table');
    this.rows = this.table.locator('tbody tr');
    this.status = page.locator('p.done-line[role="status"]');
    this.dialog = page.getByRole('dialog');
  }

  field(label: string): Locator {
    return this.page.getByLabel(label, exact);
  }

  button(name: string): Locator {
    return this.page.getByRole('button', { name, exact: true });
  }

  async expectLoaded(): Promise<void> {
    await this.table.waitFor();
    await expect.poll(() => this.table.getAttribute('aria-busy')).toBe('false');
  }

  names(): Promise<string[]> {
    return this.table.locator('tbody .item-name').allInnerTexts();
  }

  /** Ticks the rows of these item names. */
  async select(...names: string[]): Promise<void> {
    for (const name of names) await this.page.getByRole('checkbox', { name: this.l.select(name), exact: true }).check();
  }

  /** The open confirmation's title and its buttons. */
  async dialogTitle(): Promise<string> {
    await this.dialog.waitFor();
    return this.dialog.getByRole('heading').innerText();
  }

  dialogButton(name: string): Locator {
    return this.dialog.getByRole('button', { name, exact: true });
  }
}

export class ItemEditorPage {
  readonly heading: Locator;
  readonly skuRows: Locator;
  readonly dialog: Locator;
  readonly saved: Locator;

  constructor(
    readonly page: Page,
    readonly l: Labels = EN,
  ) {
    this.heading = page.getByRole('heading', { level: 1 });
    this.skuRows = page.locator('table.sku-table tbody tr');
    this.dialog = page.getByRole('dialog');
    this.saved = page.locator('form.item-editor p.done-line[role="status"]');
  }

  field(label: string): Locator {
    return this.page.getByLabel(label, exact);
  }

  button(name: string): Locator {
    return this.page.getByRole('button', { name, exact: true });
  }

  async expectLoaded(): Promise<void> {
    await this.field(this.l.name).waitFor();
  }

  /** The text under a field, linked to it by aria-describedby ('' when none). */
  async errorOf(label: string): Promise<string> {
    const field = this.field(label);
    if ((await field.getAttribute('aria-invalid')) !== 'true') return '';
    const id = await field.getAttribute('aria-describedby');
    return id ? this.page.locator(`[id="${id}"]`).innerText() : '';
  }

  /** The specs of each SKU row, as `黑/40`, in order. */
  async skuSpecs(): Promise<string[]> {
    return this.skuRows.evaluateAll((rows) =>
      rows.map((row) =>
        [...row.querySelectorAll<HTMLInputElement>('td:not(.select-cell) input')]
          .slice(0, -3)
          .map((input) => input.value)
          .join('/'),
      ),
    );
  }

  /** The images' URLs in order. */
  imageUrls(): Promise<string[]> {
    return this.page
      .locator('.image-list input[type="url"]')
      .evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
  }

  /** The accessible name of the focused element. */
  focusedName(): Promise<string> {
    return this.page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el) return '';
      const label = el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null;
      return (el.getAttribute('aria-label') ?? label ?? el.textContent ?? '').trim();
    });
  }

  /**
   * Presses Tab (Shift+Tab with `back`) until the control named `name` has the focus — the way a
   * keyboard reaches it; fails when it is not reached within `limit` presses.
   */
  async tabTo(name: string, { back = false, limit = 120 } = {}): Promise<void> {
    for (let i = 0; i < limit; i++) {
      if ((await this.focusedName()) === name) return;
      await this.page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    }
    throw new Error(
      `"${name}" was not reached by ${back ? 'Shift+Tab' : 'Tab'}; focus is on "${await this.focusedName()}"`,
    );
  }
}
