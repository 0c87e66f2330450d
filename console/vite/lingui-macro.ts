/**
 * Lingui's macros (`t`, `msg`, `<Trans>`, `useLingui` from `@lingui/*\/macro`) turned into catalogue
 * lookups by Lingui's own Babel plugin, run only on the modules that import a macro. Lingui 6 does
 * this natively in its Vite plugin, and `@rolldown/plugin-babel` would run the plugin for us, but both
 * need Node 22 and this project supports Node 20 (package.json `engines`): this is that glue, nothing more.
 */
import { transformAsync } from '@babel/core';
import linguiMacroPlugin from '@lingui/babel-plugin-lingui-macro';
import type { LinguiConfigNormalized } from '@lingui/conf';
import type { Plugin } from 'vite';

const SCRIPT = /\.[cm]?[jt]sx?$/;

export function linguiMacro(linguiConfig: LinguiConfigNormalized): Plugin {
  return {
    name: 'console-lingui-macro',
    enforce: 'pre',
    async transform(code, id) {
      const file = id.split('?')[0] ?? id;
      if (!SCRIPT.test(file) || file.includes('/node_modules/') || !code.includes('/macro')) return null;
      const result = await transformAsync(code, {
        filename: file,
        babelrc: false,
        configFile: false,
        sourceMaps: true,
        parserOpts: { plugins: ['jsx', 'typescript'] },
        plugins: [[linguiMacroPlugin, { linguiConfig }]],
      });
      return result?.code ? { code: result.code, map: result.map } : null;
    },
  };
}
