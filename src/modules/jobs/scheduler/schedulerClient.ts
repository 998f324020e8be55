// The two calls of the scheduler contract (docs/jobs.md § External scheduler): register a job's next slot, cancel a job's registrations.

/** What the service asks the scheduler to call back; the scheduler keys it by tenant, job and slot. */
export interface SlotRegistration {
  jobId: string;
  slot: string;
  callbackUrl: string;
  tenant?: string;
}

export interface RegistrationCancel {
  jobId: string;
  tenant?: string;
}

/** One call's time limit: a scheduler slower than this counts as not answering. */
const CALL_TIMEOUT_MS = 5_000;

export class SchedulerCallFailed extends Error {
  constructor(
    message: string,
    /** The scheduler answered and refused this call for good (a 4xx other than 408 and 429): retrying it cannot help. */
    readonly refused = false,
  ) {
    super(message);
  }
}

async function post(url: URL, body: unknown): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
  } catch (error) {
    throw new SchedulerCallFailed(`scheduler at ${url.origin} not reached: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Drain the body so the connection goes back to the pool.
  await response.arrayBuffer().catch(() => undefined);
  if (!response.ok) {
    const refused = response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429;
    throw new SchedulerCallFailed(`scheduler at ${url.origin} answered ${response.status}`, refused);
  }
}

export class SchedulerClient {
  private readonly registerUrl: URL;
  private readonly cancelUrl: URL;

  constructor(schedulerUrl: string) {
    this.registerUrl = new URL(schedulerUrl);
    this.cancelUrl = new URL('cancel', schedulerUrl.endsWith('/') ? schedulerUrl : `${schedulerUrl}/`);
  }

  register(registration: SlotRegistration): Promise<void> {
    return post(this.registerUrl, registration);
  }

  cancel(cancel: RegistrationCancel): Promise<void> {
    return post(this.cancelUrl, cancel);
  }
}
