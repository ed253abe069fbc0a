/** Runs once when the Next server starts (server/instrumentation-node.ts: the environment, then the database). */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") await (await import("@/server/instrumentation-node")).registerOnNode();
}
