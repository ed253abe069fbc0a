/**
 * What the web server does once as it starts, on Node.js (instrumentation.ts imports it there only,
 * so the Edge build never sees process.exit): a bad environment stops it with a message naming the
 * variables; then the database is made ready (on PostgreSQL the committed migrations applied, once
 * across replicas starting together), and a database that cannot be reached stops it too.
 */
import { readyDatabase } from "@/db/ready";
import { env, EnvError } from "@/server/env";

export async function registerOnNode(): Promise<void> {
  try {
    env();
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    // Next would log the error and keep serving broken pages; stop instead.
    console.error(`Ferry cannot start. ${error.message}`);
    process.exit(1);
  }
  try {
    await readyDatabase();
  } catch (error) {
    console.error(`Ferry cannot start. ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
