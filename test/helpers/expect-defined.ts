import { expect } from 'vitest';

/**
 * Asserts that `value` — an element taken from a list, an entry looked up by key — is there, and
 * narrows its type to match, so the rest of the test can use it without `!`.
 */
export function expectDefined<T>(value: T, what?: string): asserts value is Exclude<T, undefined> {
  expect(value, what).toBeDefined();
}
