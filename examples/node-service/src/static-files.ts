import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/**
 * Serves files from `dir` (GET and HEAD); a path that names no file gets `index.html` (a
 * single-page app's client-side routes), a path escaping `dir` a 404. Resolves false when it
 * sent nothing (no such file and no index.html).
 */
export async function serveStatic(
  dir: string,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<boolean> {
  const root = resolve(dir);
  let path: string;
  try {
    path = resolve(join(root, normalize(decodeURIComponent(pathname))));
  } catch {
    return false;
  }
  if (path !== root && !path.startsWith(root + sep)) return false;
  const file = (await isFile(path))
    ? path
    : (await isFile(join(path, 'index.html')))
      ? join(path, 'index.html')
      : join(root, 'index.html');
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) return false;
  // Content-hashed build output (Angular: main-ABCDEF12.js) never changes under its name.
  const hashed = /[-.][0-9A-Za-z]{8,}\.(?:js|mjs|css|woff2|png|svg|jpg)$/.test(file);
  res.writeHead(200, {
    'content-type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
    'content-length': info.size,
    'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  if (req.method === 'HEAD') res.end();
  else createReadStream(file).pipe(res);
  return true;
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}
