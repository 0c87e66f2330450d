/** The language menu: every language named in its own words; the choice is remembered. */
import { useLingui } from '@lingui/react/macro';
import { useId } from 'react';
import { chooseLocale, currentLocale, LOCALE_NAMES, LOCALES, type Locale } from '../i18n/i18n.ts';

export function LanguageSwitch() {
  const { t } = useLingui();
  const id = useId();
  return (
    <div className="language-switch">
      <label htmlFor={id}>{t`Language`}</label>
      <select id={id} value={currentLocale()} onChange={(e) => void chooseLocale(e.target.value as Locale)}>
        {LOCALES.map((locale) => (
          <option key={locale} value={locale} lang={locale}>
            {LOCALE_NAMES[locale]}
          </option>
        ))}
      </select>
    </div>
  );
}
