import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';

// The build is committed under app/static/dashboard and served by the Python service at
// /dashboard (index.html for every route, hashed assets immutable). The CSP there allows
// 'self' only: no inline script or style, fonts as files (never data: URIs).
export default defineConfig({
  base: '/dashboard/',
  plugins: [react(), tailwindcss()],
  build: {
    outDir: '../app/static/dashboard',
    emptyOutDir: true,
    assetsDir: 'assets',
    assetsInlineLimit: 0,
    sourcemap: false,
    modulePreload: { polyfill: false },
  },
  // `npm run dev`: the page on Vite's server, /graphql (and its websocket) from `qafila serve`.
  server: {
    proxy: { '/graphql': { target: process.env.QAFILA_URL ?? 'http://127.0.0.1:8000', ws: true, changeOrigin: false } },
  },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
