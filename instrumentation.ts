/** Runs once when the Next server starts: a bad environment stops it with a message naming the variables. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { env, EnvError } = await import("@/server/env");
  try {
    env();
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    // Next would log the error and keep serving broken pages; stop instead.
    console.error(`Ferry cannot start. ${error.message}`);
    process.exit(1);
  }
}
