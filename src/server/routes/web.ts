import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { contentType } from '../../workspace/content-type.ts';

/** The built web UI (`web/dist`, made by scripts/setup.sh). */
export const WEB_DIST = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

const PLOTLY_STYLE_HASHES = [
  '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=', // the empty text
  'ji27qzEtxXZW+7dun6UwjHXJ18e6WAin1VvNtkzIE/o=', // plotly.js-strict-dist-min 4.1.1's maplibre CSS
];

/**
 * The page's security policy: scripts, styles and workers only from this origin (no inline
 * script, no eval), images from here or from blobs the app made, nothing framed or framing,
 * no forms, no plugins. Model output and file names can then never run as script.
 */
export const WEB_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // plotly.js (a lazy chunk, docs/spec.md#charts) adds its rules to an empty <style> through the
  // CSSOM, and injects the CSS of its map traces as one fixed text: the hashes allow exactly those.
  `style-src 'self' ${PLOTLY_STYLE_HASHES.map((hash) => `'sha256-${hash}'`).join(' ')}`,
  "img-src 'self' blob: data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

const WEB_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  wasm: 'application/wasm',
  woff2: 'font/woff2',
  ico: 'image/x-icon',
  webmanifest: 'application/manifest+json',
};

const HASHED = /-[A-Za-z0-9_-]{8,}\.(js|css|mjs|woff2?|svg|png|wasm)$/;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route needs no API key (the web UI's page and assets; its API calls need one). */
    public?: boolean;
  }
}

const PUBLIC = { config: { public: true } };

/**
 * Serves the web UI at `/`: index.html for `/` and every deep link `/t/{thread_id}` (the app
 * routes in the browser), hashed assets with a year of immutable caching, everything with a
 * strict Content-Security-Policy and `nosniff`. Only the files that exist in the build are
 * routes, so `/v1`, `/health` and `/openapi.json` are never shadowed and unknown paths still
 * get the API's 404. Without a build, `/` says how to make one.
 */
export function registerWebRoutes(app: FastifyInstance, options: { dist?: string } = {}): void {
  const dist = options.dist ?? WEB_DIST;
  const index = join(dist, 'index.html');
  const secure = (reply: FastifyReply) =>
    reply
      .header('content-security-policy', WEB_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY');

  const page = async (_request: unknown, reply: FastifyReply) => {
    secure(reply).header('cache-control', 'no-cache');
    if (!existsSync(index)) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The web UI is not built. Run `npm start` (it builds it), or `npm run build --prefix web`.\n');
    }
    return reply.type('text/html; charset=utf-8').send(createReadStream(index));
  };
  app.get('/', PUBLIC, page);
  app.get('/t/*', PUBLIC, page);

  for (const file of filesOf(dist)) {
    const path = `/${relative(dist, file).split(sep).join('/')}`;
    if (path === '/index.html') continue;
    const bytes = statSync(file).size;
    app.get(path, PUBLIC, async (_request, reply) => {
      secure(reply)
        .type(WEB_TYPES[path.split('.').pop() ?? ''] ?? contentType(path))
        .header('content-length', bytes)
        .header(
          'cache-control',
          HASHED.test(path) ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
        );
      return reply.send(createReadStream(file));
    });
  }
}

function filesOf(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) out.push(...filesOf(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}
