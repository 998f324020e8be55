// Serves the web console's static files at /console: plain HTML, ES modules and CSS from the repository, no build step.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyAdapter } from '@nestjs/platform-fastify';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { requestPath } from '../http/httpTypes.js';

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

function setConsoleHeaders(reply: FastifyReply): void {
  reply.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Referrer-Policy', 'no-referrer');
  // Revalidate on every load (ETag): an upgraded service serves its own console, never a cached older one.
  reply.header('Cache-Control', 'no-cache');
}

/**
 * Outside Nest's router, so outside the bearer guard: the files hold no data. The pages call the API with the
 * token the operator enters, which the API checks as for any client. A file that is not there falls through to
 * the not-found handler (ROUTE_NOT_FOUND in the API's shape).
 */
export function mountConsole(http: FastifyAdapter): void {
  const fastify = http.getInstance() as FastifyInstance;
  // The service's root is where a person lands first: send them to the console. Relative, so it holds behind a path prefix.
  fastify.get('/', (_request, reply) => reply.redirect(`.${CONSOLE_PATH}/`, 302));
  // The router ignores a trailing slash, so neither `/console` nor `/console/` reaches the files' route: the first
  // is sent on to the second (as a static file server does for a folder), the second answers with the index.
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return done();
    const path = requestPath(request);
    if (path === CONSOLE_PATH) {
      reply.redirect(`${CONSOLE_PATH}/`, 301);
      return;
    }
    if (path === `${CONSOLE_PATH}/`) {
      reply.sendFile('index.html');
      return;
    }
    done();
  });
  void fastify.register(fastifyStatic, {
    root: consoleAssetsDirectory(),
    prefix: `${CONSOLE_PATH}/`,
    index: false,
    dotfiles: 'deny',
    setHeaders: setConsoleHeaders,
  });
}
