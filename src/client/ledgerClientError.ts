// Errors the client throws: the service's own answer (code, status, requestId), or a request that got no answer.

/** The service answered with an error body: `{"error": {"code", "message", "requestId", "details"}}`. */
export class LedgerApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
    readonly details: unknown,
    readonly operation: string,
  ) {
    super(`${operation}: ${status} ${code}: ${message}${requestId ? ` (request ${requestId})` : ''}`);
    this.name = 'LedgerApiError';
  }
}

/**
 * No answer arrived. `maybeApplied`: the request may have reached the service and been carried out (the
 * connection broke after it was sent); check before sending it again unless the operation is safe to repeat.
 */
export class LedgerNetworkError extends Error {
  constructor(
    readonly operation: string,
    readonly maybeApplied: boolean,
    override readonly cause: unknown,
    /**
     * The key the write carried, when it carried one: sending the same request again with this `Idempotency-Key`
     * is safe, whether or not the service carried it out.
     */
    readonly idempotencyKey?: string,
  ) {
    super(
      `${operation}: no answer from the service (${describeCause(cause)})${maybeApplied ? '; it may have been carried out' : ''}${idempotencyKey ? `; resend it with Idempotency-Key ${idempotencyKey}` : ''}`,
    );
    this.name = 'LedgerNetworkError';
  }
}

function describeCause(cause: unknown): string {
  const inner = (cause as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  return inner?.code ?? inner?.message ?? (cause instanceof Error ? cause.message : String(cause));
}
