import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Preact through the automatic JSX runtime (no React, no compat layer); the app imports the
// step view from ../src/agent/view (pure TypeScript shared with the server).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // plotly.js alone is ~5 MB (a lazy chunk, loaded only when a plotly chart is drawn).
    chunkSizeWarningLimit: 5200,
    assetsInlineLimit: 0,
  },
});
