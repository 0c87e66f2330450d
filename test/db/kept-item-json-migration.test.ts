/**
 * The kept item JSON's function (item_rest_json_refresh) is written by catalog-json.ts from the REST
 * item selection (REST_ITEM_FIELDS) and held literally by the migration that keeps it. This holds the
 * newest migration defining the function equal to what catalog-json.ts generates now, so a change of
 * the REST fields (or of how a field is written) fails here until a new migration replaces the
 * function and refreshes every row (`SELECT item_rest_json_refresh(NULL)`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KEPT_ITEM_JSON_FUNCTION } from '../../src/catalog/catalog-json.ts';
import { migrationsDir } from '../../src/db/migrate.ts';

/** The text of the last `CREATE [OR REPLACE] FUNCTION "item_rest_json_refresh"` of all migrations, in order. */
function lastDefinition(): { migration: string; text: string } {
  let found: { migration: string; text: string } | undefined;
  for (const name of readdirSync(migrationsDir()).sort()) {
    let script: string;
    try {
      script = readFileSync(`${migrationsDir()}${name}/migration.sql`, 'utf8');
    } catch {
      continue;
    }
    const re = /CREATE (?:OR REPLACE )?FUNCTION "item_rest_json_refresh"[\s\S]*?\n\$\$;/g;
    for (const m of script.matchAll(re)) found = { migration: name, text: m[0].replace('CREATE OR REPLACE', 'CREATE') };
  }
  if (!found) throw new Error('no migration defines item_rest_json_refresh');
  return found;
}

describe('the kept item JSON migration', () => {
  it('when the migrations’ last item_rest_json_refresh is compared with what catalog-json.ts generates, then it is the same text', () => {
    const { migration, text } = lastDefinition();
    expect(text, `${migration} holds another item_rest_json_refresh: add a migration replacing it`).toBe(
      KEPT_ITEM_JSON_FUNCTION,
    );
  });
});
