// Fenced writes over HTTP: a session's or a conversation's read answers its stream revision as an ETag, and a write
// under /v1/sessions/{id}/… or /v1/conversations/{key}/… sent with If-Match goes ahead only while that stream stands
// at a revision it names (412 PRECONDITION_FAILED otherwise, nothing written). See WriteFence.
import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { map, type Observable } from 'rxjs';
import { ValidationError } from '../errors/ledgerError.js';
import { conversationStreamName } from '../events/conversation/conversationEvents.js';
import { sessionStreamName } from '../events/session/sessionEvents.js';
import { enterWriteFence, type FenceRevisions, WriteFence } from '../events/writeFence.js';
import { WRITE_METHODS } from '../idempotency/idempotencyKey.js';
import { requestTenant } from './auth.js';
import type { Request, Response } from './httpTypes.js';

/** The reads whose answer is one stream's state, with its `revision`: they answer it as an ETag. */
const ETAGGED_READS = new Set(['/v1/sessions/:id', '/v1/conversations/:key']);

/** The stream a route writes, by its template: a session's under /v1/sessions/:id, a conversation's under /v1/conversations/:key. */
function fencedStream(request: Request): { streamName: string; resource: string } | undefined {
  const route = request.routeOptions.url ?? '';
  const tenant = requestTenant(request);
  const { id, key } = request.params;
  if ((route === '/v1/sessions/:id' || route.startsWith('/v1/sessions/:id/')) && id !== undefined) {
    return { streamName: sessionStreamName(id, tenant), resource: `session ${id}` };
  }
  if ((route === '/v1/conversations/:key' || route.startsWith('/v1/conversations/:key/')) && key !== undefined) {
    return { streamName: conversationStreamName(key, tenant), resource: `conversation ${key}` };
  }
  return undefined;
}

/** `"5"`, `5` or a list of them, or `*`; a weak tag (`W/"5"`) never matches a write's precondition, so it is refused. */
export function parseIfMatch(header: string): FenceRevisions {
  const invalid = () => new ValidationError('If-Match takes the ETag a read answered ("5"), a list of them, or *', { ifMatch: header }, 'INVALID_IF_MATCH');
  if (header.trim() === '*') return 'any';
  const revisions = header.split(',').map((part) => {
    const tag = /^\s*"?(\d{1,15})"?\s*$/.exec(part);
    if (!tag) throw invalid();
    return Number(tag[1]);
  });
  if (revisions.length === 0) throw invalid();
  return revisions;
}

export const etagOf = (revision: number) => `"${revision}"`;

@Injectable()
export class IfMatchInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    if (request.method === 'GET' && ETAGGED_READS.has(request.routeOptions.url ?? '')) {
      const response = context.switchToHttp().getResponse<Response>();
      return next.handle().pipe(
        map((body: unknown) => {
          const revision = (body as { revision?: unknown } | null)?.revision;
          if (typeof revision === 'number') response.header('ETag', etagOf(revision));
          return body;
        }),
      );
    }
    const header = request.headers['if-match'];
    if (header === undefined || !WRITE_METHODS.has(request.method)) return next.handle();
    const stream = fencedStream(request);
    if (!stream) {
      throw new ValidationError(
        'If-Match is taken by writes under /v1/sessions/{id}/ and /v1/conversations/{key}/ only',
        { route: request.routeOptions.url ?? null },
        'IF_MATCH_NOT_SUPPORTED',
      );
    }
    enterWriteFence(new WriteFence(stream.streamName, parseIfMatch(Array.isArray(header) ? header.join(',') : header), stream.resource));
    return next.handle();
  }
}
