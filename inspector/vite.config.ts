// The inspector's build: a static page under /inspector/ in dist/, made by `npm run build`
// (after tsdown, which empties dist/). Everything it loads is bundled: no CDN, works offline.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/inspector/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: fileURLToPath(new URL('../dist/inspector', import.meta.url)), emptyOutDir: true },
  logLevel: 'warn',
});
