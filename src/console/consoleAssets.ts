// Serves the web console's static files at /console: plain HTML, ES modules and CSS from the repository, no build step.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ExpressAdapter } from '@nestjs/platform-express';
import type { Express, Response } from 'express';

export const CONSOLE_PATH = '/console';

/**
 * tsc copies no static files into dist/, so the assets are read from src/console/public under the package root,
 * found by walking up from this module: the same folder whether it runs from src (tests) or dist (npm start).
 */
export function consoleAssetsDirectory(from: string = import.meta.dirname): string {
  for (let directory = from; ; directory = dirname(directory)) {
    if (existsSync(join(directory, 'package.json'))) return join(directory, 'src', 'console', 'public');
    if (dirname(directory) === directory) throw new Error(`no package.json above ${from}: cannot locate the console's files`);
  }
}

// The pages render hostile text (transcripts) and call only this origin: scripts from here alone, no inline script,
// no plugins, never framed. The escaping in the pages is the defence; this policy is the second one.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function setConsoleHeaders(response: Response): void {
  response.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('Referrer-Policy', 'no-referrer');
  // Revalidate on every load (ETag): an upgraded service serves its own console, never a cached older one.
  response.setHeader('Cache-Control', 'no-cache');
}

/**
 * Outside Nest's router, so outside the bearer guard: the files hold no data. The pages call the API with the
 * token the operator enters, which the API checks as for any client.
 */
export function mountConsole(http: ExpressAdapter): void {
  // The service's root is where a person lands first: send them to the console. Relative, so it holds behind a path prefix.
  (http.getInstance() as Express).get('/', (_request, response) => response.redirect(302, `.${CONSOLE_PATH}/`));
  http.useStaticAssets(consoleAssetsDirectory(), {
    prefix: CONSOLE_PATH,
    index: 'index.html',
    dotfiles: 'deny',
    fallthrough: true,
    setHeaders: setConsoleHeaders,
  });
}
