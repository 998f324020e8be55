// Polls until a check holds or a deadline passes, for state that settles asynchronously (subscriptions stopping, ...).
export async function eventually<T>(probe: () => Promise<T> | T, check: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await probe();
  while (!check(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    value = await probe();
  }
  return value;
}
