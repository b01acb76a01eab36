import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * Builds the live view into dist/ui/, which `statewright serve` serves at `/`. Kept apart from the
 * root vite.config.ts, which configures vitest. Relative asset paths (`base: './'`) let the same
 * build be served under any prefix; nothing is fetched from the network at run time.
 */
const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: './',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    // Chromium and Node 20's era of browsers: no transpiling down, a small readable bundle.
    target: 'es2022',
    assetsInlineLimit: 0,
  },
});
