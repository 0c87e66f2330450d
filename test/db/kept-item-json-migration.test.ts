/**
 * The kept item JSON's function (item_rest_json_refresh) is written by catalog-json.ts from the REST
 * item selection (REST_ITEM_FIELDS) and held literally by the migration that keeps it. This holds the
 * newest migration defining the function equal to what catalog-json.ts generates now, so a change of
 * the REST fields (or of how a field is written) fails here until a new migration replaces the
 * function and refreshes every row (`SELECT item_rest_json_refresh(NULL)`).
 */
import { describe, expect, it } from 'vitest';
import { KEPT_ITEM_JSON_FUNCTION } from '../../src/catalog/catalog-json.ts';
import { readMigrations } from '../../src/db/migrate.ts';

/** The text of the last `CREATE [OR REPLACE] FUNCTION "item_rest_json_refresh"` of all migrations, in order. */
async function lastDefinition(): Promise<{ migration: string; text: string }> {
  let found: { migration: string; text: string } | undefined;
  const re = /CREATE (?:OR REPLACE )?FUNCTION "item_rest_json_refresh"[\s\S]*?\n\$\$;/g;
  for (const { name, script } of await readMigrations())
    for (const m of script.matchAll(re)) found = { migration: name, text: m[0].replace('CREATE OR REPLACE', 'CREATE') };
  if (!found) throw new Error('no migration defines item_rest_json_refresh');
  return found;
}

describe('the kept item JSON migration', () => {
  it('when the migrations’ last item_rest_json_refresh is compared with what catalog-json.ts generates, then it is the same text', async () => {
    const { migration, text } = await lastDefinition();
    expect(text, `${migration} holds another item_rest_json_refresh: add a migration replacing it`).toBe(
      KEPT_ITEM_JSON_FUNCTION,
    );
  });
});
