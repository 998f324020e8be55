// Recognises "the database is away" errors, which become 503s instead of 500s.

const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);
// 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now, 53300 too many connections.
const UNAVAILABLE_SQLSTATE = new Set(['57P01', '57P02', '57P03', '53300']);

export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_ERRNO.has(code) || UNAVAILABLE_SQLSTATE.has(code) || code.startsWith('08')) return true;
  }
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|database is closed/i.test(
    error.message,
  );
}

export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
