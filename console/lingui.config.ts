/** Lingui: English is the source language, every message also in Simplified Chinese (console/src/i18n/). */
import { defineConfig } from '@lingui/conf';

export const LOCALES = ['en', 'zh-CN'] as const;

export default defineConfig({
  sourceLocale: 'en',
  locales: [...LOCALES],
  // English falls back to the source text; Chinese must have every message (test/console/catalogues.test.ts).
  fallbackLocales: { default: 'en' },
  catalogs: [{ path: '<rootDir>/src/i18n/{locale}', include: ['<rootDir>/src'] }],
  format: 'po',
  orderBy: 'message',
});
