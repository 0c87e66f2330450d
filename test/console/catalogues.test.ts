/**
 * Every text of the console in both languages (contract §15, console.md §3): the messages the
 * sources hold (extracted now, as `npm run console:extract` would) are each in the English and the
 * Chinese catalogue, and each has a Chinese translation. A new message that was not extracted, or a
 * Chinese one left empty, fails here.
 */
import { join } from 'node:path';
import { getCatalogs } from '@lingui/cli/api';
import { getConfig } from '@lingui/conf';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/service-process.ts';

describe('the console’s catalogues', () => {
  it('when the sources’ messages are extracted, then each is in en and zh-CN, with a Chinese translation', async () => {
    const config = getConfig({ configPath: join(ROOT, 'console', 'lingui.config.ts'), skipValidation: true });
    const catalogs = await getCatalogs(config);
    expect(catalogs.length).toBe(1);
    const catalog = catalogs[0]!;
    const extracted = await catalog.collect();
    expect(extracted, 'extraction failed').toBeTruthy();
    const ids = Object.keys(extracted!);
    expect(ids.length).toBeGreaterThan(30);
    const { en, 'zh-CN': zh } = await catalog.readAll();
    const missing = (catalogue: typeof en) =>
      ids.filter((id) => !catalogue?.[id]).map((id) => extracted![id]?.message ?? id);
    expect(missing(en), 'not in en.po: run `npm run console:extract`').toEqual([]);
    expect(missing(zh), 'not in zh-CN.po: run `npm run console:extract`').toEqual([]);
    const untranslated = ids.filter((id) => !zh?.[id]?.translation).map((id) => extracted![id]?.message ?? id);
    expect(untranslated, 'without a Chinese translation in zh-CN.po').toEqual([]);
    // Messages no source uses any more: `console:extract` marks them obsolete; they should go.
    const unused = Object.keys(zh ?? {}).filter((id) => !extracted![id] && !zh?.[id]?.obsolete);
    expect(unused, 'in zh-CN.po but in no source').toEqual([]);
  });
});
