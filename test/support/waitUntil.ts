// Polls a condition until it holds or time runs out: for tests that wait on another process, never on a clock.

export async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 60_000, intervalMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    // A check that throws (the service is restarting) counts as not yet.
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}
