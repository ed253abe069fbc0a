/**
 * `npm run worker` (through scripts/worker.mjs) and `npm start`: the migration worker as a process
 * of its own, beside the web app, on the same database (SQLite in WAL mode). Any number may run at
 * once: each claims its work with a lease (see worker.ts). Stops cleanly on SIGINT/SIGTERM,
 * releasing its leases so another worker carries on at once.
 *
 * Env: DATABASE_FILE, FERRY_ENCRYPTION_KEY (+ FERRY_ENCRYPTION_OLD_KEYS), SANDBOX_URL and
 * SANDBOX_ADMIN_TOKEN (rehearsals), and the rest of server/env.ts.
 */
import { openDb } from "@/db/client";
import { env } from "@/server/env";
import { appKeyRing } from "@/server/security/keyring";
import { createWorker } from "./worker";

function main(): void {
  const e = env();
  const db = openDb(e.DATABASE_FILE);
  const worker = createWorker({
    db,
    ring: appKeyRing(),
    sandbox: e.SANDBOX_ADMIN_TOKEN ? { url: e.SANDBOX_URL, adminToken: e.SANDBOX_ADMIN_TOKEN } : null,
    log: (line) => console.log(line),
  });
  console.log(`Migration worker ${worker.owner} started on ${e.DATABASE_FILE}${e.SANDBOX_ADMIN_TOKEN ? "" : " (no SANDBOX_ADMIN_TOKEN: rehearsals will fail)"}`);
  worker.start();
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`Migration worker stopping (${signal})`);
    void worker.stop().finally(() => {
      db.$client.close();
      process.exit(0);
    });
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
}

main();
