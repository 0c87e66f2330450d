/**
 * A small, believable demo catalogue seeded into an empty database in development, so a fresh
 * clone shows a working shop: a category tree, ~30 items (some with Chinese names), SKUs, images, and
 * synonym groups — holding every item the README's search examples name (test/search/readme-search.test.ts).
 */
import type { Prisma } from '../db/database.ts';
import { freeHandleOfName } from './handles.ts';

interface DemoItem {
  name: string;
  price: string;
  /** SKU variants: [sku suffix, specs, price delta, stock] */
  variants: Array<[string, Record<string, string>, string | null, number]>;
}

const TREE: Array<{ name: string; children: Array<{ name: string; items: DemoItem[] }> }> = [
  {
    name: 'Shoes',
    children: [
      {
        name: 'Running',
        items: [
          {
            name: 'Trail runner GTX',
            price: '129.00',
            variants: [
              ['BLK-42', { color: 'black', size: '42' }, null, 12],
              ['BLK-43', { color: 'black', size: '43' }, null, 8],
              ['ORG-42', { color: 'orange', size: '42' }, '134.00', 5],
            ],
          },
          {
            name: 'Road racer 2',
            price: '99.90',
            variants: [
              ['WHT-41', { color: 'white', size: '41' }, null, 20],
              ['WHT-44', { color: 'white', size: '44' }, null, 4],
            ],
          },
          { name: '轻量跑鞋 Air', price: '459.00', variants: [['GRY-40', { color: '灰色', size: '40' }, null, 15]] },
          { name: 'Recovery slide', price: '29.90', variants: [['ONE', { size: 'one size' }, null, 60]] },
          // The README's first search example: 男士跑鞋 ("men's running shoes") → 男士 + 跑鞋.
          {
            name: '跑鞋 男士款',
            price: '399.00',
            variants: [
              ['BLK-42', { color: '黑色', size: '42' }, null, 10],
              ['BLK-43', { color: '黑色', size: '43' }, null, 6],
            ],
          },
        ],
      },
      {
        name: 'Boots',
        items: [
          {
            name: 'Trail boot',
            price: '19.90',
            variants: [
              ['RED-42', { color: 'red', size: '42' }, null, 10],
              ['RED-43', { color: 'red', size: '43' }, null, 30],
            ],
          },
          {
            name: 'Winter hiker',
            price: '189.00',
            variants: [
              ['BRN-42', { color: 'brown', size: '42' }, null, 6],
              ['BRN-45', { color: 'brown', size: '45' }, '199.00', 2],
            ],
          },
          { name: '真皮马丁靴', price: '699.00', variants: [['BLK-39', { color: '黑色', size: '39' }, null, 7]] },
        ],
      },
    ],
  },
  {
    name: 'Clothing',
    children: [
      {
        name: 'Jackets',
        items: [
          {
            name: 'Rain shell 100%',
            price: '149.00',
            variants: [
              ['S', { size: 'S' }, null, 9],
              ['M', { size: 'M' }, null, 14],
              ['L', { size: 'L' }, null, 11],
            ],
          },
          { name: 'Down parka', price: '259.00', variants: [['NVY-M', { color: 'navy', size: 'M' }, null, 5]] },
          {
            name: '羽绒服 超轻',
            price: '899.00',
            variants: [
              ['M', { size: 'M' }, null, 8],
              ['L', { size: 'L' }, null, 3],
            ],
          },
          { name: 'Fleece mid_layer', price: '59.00', variants: [['GRN-M', { color: 'green', size: 'M' }, null, 25]] },
        ],
      },
      {
        name: 'T-shirts',
        items: [
          {
            name: 'Merino tee',
            price: '49.00',
            variants: [
              ['S', { size: 'S' }, null, 30],
              ['M', { size: 'M' }, null, 40],
            ],
          },
          { name: 'Cotton crew 3-pack', price: '24.99', variants: [['M', { size: 'M' }, null, 100]] },
          { name: '纯棉短袖T恤', price: '79.00', variants: [['WHT-L', { color: '白色', size: 'L' }, null, 50]] },
          // Written joined, so `t-shirt` finds it and `tshirt` finds the T-shirts (contract §9.6).
          { name: 'Logo tshirt', price: '35.00', variants: [['BLK-M', { color: 'black', size: 'M' }, null, 24]] },
          {
            name: 'Running singlet',
            price: '19.00',
            variants: [
              ['XS', { size: 'XS' }, null, 0],
              ['M', { size: 'M' }, null, 12],
            ],
          },
        ],
      },
      {
        name: 'Socks',
        items: [
          {
            name: 'Wool hiking socks',
            price: '14.50',
            variants: [
              ['M', { size: '39-42' }, null, 80],
              ['L', { size: '43-46' }, null, 70],
            ],
          },
          { name: '运动袜 五双装', price: '39.00', variants: [['ONE', { size: '均码' }, null, 200]] },
        ],
      },
    ],
  },
  {
    name: 'Outdoor gear',
    children: [
      {
        name: 'Tents',
        items: [
          { name: 'Ultralight 1P tent', price: '349.00', variants: [['GRN', { color: 'green' }, null, 4]] },
          { name: 'Family dome 4P', price: '279.00', variants: [['ORG', { color: 'orange' }, null, 3]] },
          { name: '双人帐篷 防雨', price: '1299.00', variants: [['GRY', { color: '灰色' }, null, 6]] },
        ],
      },
      {
        name: 'Backpacks',
        items: [
          {
            name: 'Daypack 22L',
            price: '79.00',
            variants: [
              ['BLU', { color: 'blue' }, null, 18],
              ['BLK', { color: 'black' }, null, 22],
            ],
          },
          {
            name: 'Trekking pack 55L',
            price: '219.00',
            variants: [
              ['M', { torso: 'M' }, null, 7],
              ['L', { torso: 'L' }, null, 5],
            ],
          },
          { name: '登山包 40升', price: '399.00', variants: [['RED', { color: '红色' }, null, 9]] },
        ],
      },
      {
        name: 'Cooking',
        items: [
          { name: 'Titanium pot 750ml', price: '39.90', variants: [['TI', { material: 'titanium' }, null, 33]] },
          { name: 'Gas stove mini', price: '45.00', variants: [['STD', {}, null, 16]] },
          { name: 'Spork (2 pieces)', price: '7.99', variants: [['MIX', { color: 'mixed' }, null, 150]] },
        ],
      },
    ],
  },
  {
    name: '电子产品',
    children: [
      {
        name: '耳机',
        items: [
          {
            name: '蓝牙耳机 Pro',
            price: '1499.00',
            variants: [
              ['WHT', { color: '白色' }, null, 20],
              ['BLK', { color: '黑色' }, null, 15],
            ],
          },
          { name: 'Sport earbuds', price: '89.00', variants: [['BLK', { color: 'black' }, null, 40]] },
        ],
      },
      {
        name: 'Headlamps',
        items: [
          { name: 'Headlamp 400 lumen', price: '34.95', variants: [['BLK', { color: 'black' }, null, 45]] },
          { name: '充电头灯', price: '129.00', variants: [['YEL', { color: '黄色' }, null, 28]] },
        ],
      },
    ],
  },
];

/**
 * Synonym groups joining the commonest Chinese and English shop words (contract §9.6), stored as the
 * service stores terms (normalised: lower case): `黑色` and `black` find the same items.
 */
export const DEMO_SYNONYMS: string[][] = [
  ['黑色', 'black'],
  ['白色', 'white'],
  ['红色', 'red'],
  ['灰色', 'grey', 'gray'],
  ['黄色', 'yellow'],
  ['跑鞋', 'running shoes'],
  ['耳机', 'earbuds', 'earphones', 'headphones'],
  ['头灯', 'headlamp'],
  ['帐篷', 'tent'],
  ['背包', 'backpack', 'daypack'],
  ['袜子', 'socks'],
  ['t恤', 't-shirt', 'tee'],
];

/** The seed's transaction bounds (it writes ~30 items with their SKUs and images). */
const SEED_TRANSACTION = { maxWait: 30_000, timeout: 120_000 };

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '') || 'item';

/** Seeds the demo catalogue in one transaction when there are no categories yet. Returns items created. */
export async function seedDemoCatalog(prisma: Prisma, onSeeding?: () => void, now = new Date()): Promise<number> {
  // Start-up work, not a request: not bounded by twice the request statement limit (Prisma's default
  // here, db/database.ts), which a loaded machine with a short DATABASE_STATEMENT_TIMEOUT can exceed.
  return prisma.$transaction(async (tx) => {
    if ((await tx.category.count()) > 0) return 0;
    onSeeding?.();
    let minutesAgo = 0;
    let created = 0;
    for (const [topIndex, top] of TREE.entries()) {
      const parent = await tx.category.create({ data: { name: top.name, sortOrder: topIndex } });
      for (const [childIndex, child] of top.children.entries()) {
        const category = await tx.category.create({
          data: { name: child.name, parentId: parent.id, sortOrder: childIndex },
        });
        for (const item of child.items) {
          minutesAgo += 37;
          const at = new Date(now.getTime() - minutesAgo * 60_000);
          const stock = item.variants.reduce((sum, [, , , skuStock]) => sum + skuStock, 0);
          const base = `${slug(child.name)}-${created + 1}`;
          await tx.item.create({
            data: {
              name: item.name,
              // As the service makes them (the seed writes through Prisma directly).
              handle: await freeHandleOfName(tx, item.name),
              categoryId: category.id,
              price: item.price,
              stock,
              createdAt: at,
              updatedAt: at,
              skus: {
                create: item.variants.map(([suffix, specs, price, skuStock]) => ({
                  skuCode: `${base.toUpperCase()}-${suffix}`,
                  specs,
                  price: price ?? item.price,
                  stock: skuStock,
                })),
              },
              images: {
                create: [0, 1].map((n) => ({ url: `https://cdn.example.com/demo/${base}-${n}.jpg`, sortOrder: n })),
              },
            },
          });
          created++;
        }
      }
    }
    await tx.synonymGroup.createMany({ data: DEMO_SYNONYMS.map((terms) => ({ terms })) });
    return created;
  }, SEED_TRANSACTION);
}
