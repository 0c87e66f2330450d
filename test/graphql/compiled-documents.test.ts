/**
 * The REST routes' documents execute compiled (src/graphql/compiled-documents.ts), behind graphql-js'
 * own coercion of the variables: what graphql-js would refuse, graphql-js executes and words.
 */
import { execute, parse } from 'graphql';
import { envelop } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { executeCompiled, useCompiledDocuments } from '../../src/graphql/compiled-documents.ts';
import { schema } from '../../src/graphql/schema.ts';

const { execute: run } = envelop({
  plugins: [{ onExecute: ({ setExecuteFn }) => setExecuteFn(execute) }, useCompiledDocuments()],
})();

/** graphql-jit's results carry its serialiser; graphql-js' do not. */
const compiledRan = (result: object) => 'stringify' in result;

const source = 'query Typed($page: Int!) { __typename }';

describe('compiled execution of the REST documents', () => {
  it('when a marked document runs with variables that coerce, then it runs compiled with the same data', async () => {
    const document = parse(source);
    executeCompiled(document);
    const result = await run({ schema, document, variableValues: { page: 2 }, contextValue: {} });
    expect(compiledRan(result)).toBe(true);
    expect(result).toMatchObject({ data: { __typename: 'Query' } });
  });

  it('when the variables would not coerce, then graphql-js executes and names the problem its own way', async () => {
    const document = parse(source);
    executeCompiled(document);
    const result = await run({ schema, document, variableValues: { page: 'two' }, contextValue: {} });
    expect(compiledRan(result)).toBe(false);
    expect(result.errors?.[0]?.message).toBe(
      'Variable "$page" got invalid value "two"; Int cannot represent non-integer value: "two"',
    );
  });

  it('when a document is not marked (a GraphQL client’s), then graphql-js executes it', async () => {
    const result = await run({ schema, document: parse(source), variableValues: { page: 2 }, contextValue: {} });
    expect(compiledRan(result)).toBe(false);
    expect(result).toMatchObject({ data: { __typename: 'Query' } });
  });
});
