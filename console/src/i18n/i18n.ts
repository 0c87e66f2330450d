/**
 * The console's languages (contract §15): the browser's choice first, switchable, the choice kept in
 * localStorage. Only the active catalogue is loaded (each .po file is its own chunk, compiled by
 * @lingui/vite-plugin at build time).
 */
import { i18n, type Messages } from '@lingui/core';

export const LOCALES = ['en', 'zh-CN'] as const;
export type Locale = (typeof LOCALES)[number];

/** Each language in its own words, as a language menu shows them. */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', 'zh-CN': '中文' };

/** Each catalogue a chunk of its own, loaded when its language is chosen. */
const CATALOGUES: Record<Locale, () => Promise<{ messages: Messages }>> = {
  en: () => import('./en.po'),
  'zh-CN': () => import('./zh-CN.po'),
};

const KEY = 'shop-admin.locale';

const isLocale = (value: unknown): value is Locale => LOCALES.includes(value as Locale);

/** The remembered choice, else the first of the browser's languages that the console speaks. */
export function initialLocale(): Locale {
  try {
    const stored = localStorage.getItem(KEY);
    if (isLocale(stored)) return stored;
  } catch {
    // No storage: the browser's choice.
  }
  for (const tag of navigator.languages ?? [navigator.language]) {
    const lower = tag.toLowerCase();
    if (lower.startsWith('zh')) return 'zh-CN';
    if (lower.startsWith('en')) return 'en';
  }
  return 'en';
}

export async function activate(locale: Locale): Promise<void> {
  const { messages } = await CATALOGUES[locale]();
  i18n.loadAndActivate({ locale, messages });
  document.documentElement.lang = locale;
}

/** Switches the language and remembers the choice. */
export async function chooseLocale(locale: Locale): Promise<void> {
  await activate(locale);
  try {
    localStorage.setItem(KEY, locale);
  } catch {
    // Not remembered: the next visit starts from the browser's choice again.
  }
}

export const currentLocale = (): Locale => (isLocale(i18n.locale) ? i18n.locale : 'en');
