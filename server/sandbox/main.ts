/**
 * `npm run sandbox`: the service sandbox on its own.
 *
 * Env: SANDBOX_PORT (default 4010), SANDBOX_HOST (default 127.0.0.1), SANDBOX_DB_FILE (default
 * data/sandbox.db), SANDBOX_ADMIN_TOKEN (default: generated on first start and kept in the file),
 * SANDBOX_BASE_PATH (default none: serve the API under a path prefix such as /codat).
 * Prints the URL and where the admin token and the demo client's API key are kept — never their
 * values: this output ends up in server logs (`npm start` prefixes it into its own).
 */
import { createSandbox } from "./server";

function port(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 4010;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65_535) {
    throw new Error(`SANDBOX_PORT must be a port number (0–65535), not "${raw}".`);
  }
  return value;
}

async function main(): Promise<void> {
  const dbFile = process.env.SANDBOX_DB_FILE || "data/sandbox.db";
  const sandbox = await createSandbox({
    dbFile,
    port: port(process.env.SANDBOX_PORT),
    host: process.env.SANDBOX_HOST || "127.0.0.1",
    adminToken: process.env.SANDBOX_ADMIN_TOKEN || undefined,
    basePath: process.env.SANDBOX_BASE_PATH || undefined,
    demoClient: true,
    log: (line) => console.error(line),
  });
  const adminTokenFrom = process.env.SANDBOX_ADMIN_TOKEN
    ? "SANDBOX_ADMIN_TOKEN, as it was started with (npm start keeps it in local-secrets.json in its data folder)"
    : `the database, meta key "admin_token" (generated at first start)`;
  console.log(`Service sandbox listening on ${sandbox.url}`);
  console.log(`  SANDBOX_URL=${sandbox.url}`);
  console.log(`  Database: ${dbFile} (readable by its owner only)`);
  console.log(`  Admin token for the /_sandbox controls: in ${adminTokenFrom}`);
  console.log(`  Demo client's API key: in the database, meta key "demo_api_key"; or create a client: POST /_sandbox/clients`);
  console.log(`  Authorization for the API: Basic base64(API key); for /_sandbox controls: Bearer <admin token>`);

  const stop = (signal: string) => {
    console.log(`Service sandbox stopping (${signal})`);
    void sandbox.close().then(() => process.exit(0));
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
