/** Input rules of synonym groups (contract §9.4), declared once on `saveSynonymGroup`'s argument. */
import { z } from 'zod';
import { normalise } from '../search/text.ts';
import { rule, text } from '../validation/rules.ts';

const term = text()
  .transform(normalise)
  .pipe(z.string().min(1, rule('must not be blank')).max(64, rule('must be at most 64 characters')));

/** 2..20 terms, stored normalised (as search compares them); a term given twice counts once. */
export const synonymTerms = z
  .array(term, { error: 'must be a list of strings' })
  .transform((terms) => [...new Set(terms)])
  .pipe(z.array(z.string()).min(2, 'must hold at least 2 different terms').max(20, 'must hold at most 20 terms'));
