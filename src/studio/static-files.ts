import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpError } from '../serve/http-error.ts';

/** The front end: plain ES modules and CSS shipped with the package (no build step, no CDN). */
export const STATIC_DIR = join(dirname(fileURLToPath(import.meta.url)), 'static');

/** uPlot's files, served from the installed package (node_modules), never a CDN. */
function vendorFiles(): Record<string, string> {
  const dist = dirname(createRequire(import.meta.url).resolve('uplot'));
  return { '/vendor/uplot.js': join(dist, 'uPlot.esm.js'), '/vendor/uplot.css': join(dist, 'uPlot.min.css') };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/**
 * The file for a static URL path, or null when the path is not a static one. A path that climbs out
 * of the static folder (`/static/../../package.json`, encoded or not) is a 400; nothing is read.
 */
export function staticFile(urlPath: string): string | null {
  if (urlPath === '/' || urlPath === '/index.html') return join(STATIC_DIR, 'index.html');
  const vendor = vendorFiles()[urlPath];
  if (vendor) return vendor;
  if (!urlPath.startsWith('/static/')) return null;
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath.slice('/static/'.length));
  } catch {
    throw new HttpError({
      status: 400,
      code: 'invalid_request',
      field: 'path',
      message: `bad URL encoding in ${urlPath}`,
    });
  }
  const path = normalize(join(STATIC_DIR, rel));
  if (rel.split(/[\\/]/).includes('..') || !path.startsWith(STATIC_DIR + sep))
    throw new HttpError({
      status: 400,
      code: 'path_outside_root',
      field: 'path',
      message: `'${urlPath}' leaves the Studio's static folder`,
      hint: 'static files are named under /static/',
    });
  return path;
}

export async function readStatic(path: string): Promise<{ bytes: Buffer; type: string } | null> {
  try {
    return { bytes: await readFile(path), type: TYPES[extname(path)] ?? 'application/octet-stream' };
  } catch {
    return null;
  }
}
