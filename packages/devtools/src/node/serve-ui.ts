import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { ServerResponse } from 'node:http';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/**
 * The UI's folder when no `uiDir` is given: `dist-ui/` of the `@rxscope/devtools` package as the
 * application resolves it (from its main script, else from its working directory).
 */
export function defaultUiDir(): string | undefined {
  for (const from of [process.argv[1], join(process.cwd(), 'index.js')]) {
    if (!from) continue;
    try {
      return join(createRequire(from).resolve('@rxscope/devtools/package.json'), '..', 'dist-ui');
    } catch {
      // not resolvable from there; try the next place
    }
  }
  return undefined;
}

/**
 * Serves one file of the UI (`path` relative to the mount path, `''` for the page). The page
 * gets `<base href>` set to the mount path, so its assets and API calls resolve under it; a path
 * without an extension that is no file gets the page (the UI routes on the client). Paths that
 * climb out of the folder are refused. Without a built UI, the answer is 503 saying how to build it.
 */
export async function serveUi(
  res: ServerResponse,
  uiDir: string | undefined,
  path: string,
  base: string,
): Promise<void> {
  const root = uiDir ? resolve(uiDir) : undefined;
  const index = root ? join(root, 'index.html') : undefined;
  if (!root || !index || !(await isFile(index))) {
    const text =
      'The devtools UI is not built. Run `npm run build:devtools-ui` in the rxscope repository ' +
      '(or install a published @rxscope/devtools, which ships dist-ui/), or pass uiDir.';
    res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  let relative: string;
  try {
    relative = decodeURIComponent(path).replace(/^\/+/, '');
  } catch {
    relative = '\u0000';
  }
  const file = normalize(join(root, relative));
  if (relative.includes('\u0000') || (file !== root && !file.startsWith(root + sep))) {
    res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('Bad path.');
    return;
  }
  const isPage = relative === '' || relative === 'index.html' || (!extname(relative) && !(await isFile(file)));
  if (isPage) {
    const html = (await readFile(index, 'utf8')).replace(
      /<base href="[^"]*"\s*\/?>/i,
      `<base href="${escapeAttribute(base)}/">`,
    );
    res.writeHead(200, {
      'content-type': TYPES['.html']!,
      'content-length': Buffer.byteLength(html),
      'cache-control': 'no-cache',
    });
    res.end(html);
    return;
  }
  if (!(await isFile(file))) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('Not found.');
    return;
  }
  const body = await readFile(file);
  res.writeHead(200, {
    'content-type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
    'content-length': body.length,
  });
  res.end(body);
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

function escapeAttribute(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
