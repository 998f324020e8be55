// The one error family of the service: each carries a machine-readable code and the HTTP status it maps to.

export type ErrorDetails = Record<string, unknown>;

export class LedgerError extends Error {
  /** Sent as Retry-After: when a refusal that is only about now (a limit, a busy resource) may be tried again. */
  retryAfterSeconds?: number;

  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly details?: ErrorDetails,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends LedgerError {
  constructor(message: string, details?: ErrorDetails, code = 'VALIDATION_FAILED') {
    super(code, message, 400, details);
  }
}

export class NotFoundError extends LedgerError {
  constructor(code: string, message: string, details?: ErrorDetails) {
    super(code, message, 404, details);
  }
}

export class ConflictError extends LedgerError {
  constructor(code: string, message: string, details?: ErrorDetails) {
    super(code, message, 409, details);
  }
}

export class UnavailableError extends LedgerError {
  constructor(code: string, message: string, details?: ErrorDetails) {
    super(code, message, 503, details);
  }
}
