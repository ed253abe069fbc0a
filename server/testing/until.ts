/**
 * Polls `read` until `done` says its value is the awaited one, and returns that value; throws after
 * `timeoutMs`, naming `what` and the last value. For tests and benches that wait on a worker or a
 * sandbox through the database (no event to wait on); `read` may be async (an awaited query).
 */
export async function until<T>(what: string, read: () => T | Promise<T>, done: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
