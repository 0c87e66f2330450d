/**
 * The admin console's build (contract §15): served by the service at /admin, built into dist/console
 * by scripts/build.mjs (run by `npm ci` and `npm run build`). Hashed file names under assets/, no
 * inline script (the page's Content-Security-Policy forbids one), one chunk per screen.
 */
import { fileURLToPath } from 'node:url';
import { getConfig } from '@lingui/conf';
import { lingui } from '@lingui/vite-plugin';
import { tanstackRouter } from '@tanstack/router-plugin/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { linguiMacro } from './vite/lingui-macro.ts';

const root = fileURLToPath(new URL('.', import.meta.url));
const configPath = `${root}lingui.config.ts`;

export default defineConfig({
  root,
  base: '/admin/',
  plugins: [
    linguiMacro(getConfig({ configPath })),
    tanstackRouter({
      target: 'react',
      autoCodeSplitting: true,
      routesDirectory: `${root}src/routes`,
      generatedRouteTree: `${root}src/routeTree.gen.ts`,
      quoteStyle: 'single',
      semicolons: true,
    }),
    react(),
    // A message missing from a catalogue, or one that does not compile, stops the build.
    lingui({ configPath, failOnMissing: true, failOnCompileError: true }),
  ],
  build: {
    outDir: `${root}../dist/console`,
    emptyOutDir: true,
    // Read by the size budget (test/console/budget.test.ts): which files each screen loads.
    manifest: true,
    target: 'es2022',
    // Modern browsers only: no polyfill, and nothing inlined into the HTML page.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  server: {
    // `npm run console:dev`: the console on Vite's dev server, the API from `npm start`.
    proxy: { '/graphql': 'http://localhost:3000', '/favicon.ico': 'http://localhost:3000' },
  },
});
