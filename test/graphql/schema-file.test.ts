import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { schemaSDL } from '../../src/graphql/schema-sdl.ts';

describe('schema.graphql', () => {
  it('when the Pothos schema changes, then schema.graphql must be re-printed (npm run schema:print)', () => {
    const committed = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(schemaSDL());
  });
});
