/** Runs once when the Next server starts: a bad environment stops it with a clear message. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { env } = await import("@/server/env");
  env();
}
