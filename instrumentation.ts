/**
 * Runs once when the Next server starts: a bad environment stops it with a message naming the
 * variables; then the database is made ready (on PostgreSQL the committed migrations applied,
 * once across replicas starting together), and a database that cannot be reached stops it too.
 */
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
  const { readyDatabase } = await import("@/db/ready");
  try {
    await readyDatabase();
  } catch (error) {
    console.error(`Ferry cannot start. ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
