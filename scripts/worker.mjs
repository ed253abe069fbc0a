// `npm run worker`: one more migration worker on the same data as `npm start` (the embedded
// default's secrets and database under FERRY_DATA_DIR, default ./data), e.g. a second one beside
// the one `npm start` runs. Workers share the work through leases (server/migration/engine/worker.ts).
// Environment (all optional): FERRY_DATA_DIR, DATABASE_FILE or DATABASE_URL (PostgreSQL: a worker on
// another machine), FERRY_MACHINE_ID, FERRY_WORKER_HEAP_MB (scripts/worker-node.mjs), SANDBOX_PORT,
// SANDBOX_URL, and the secrets of scripts/start.mjs.
import path from "node:path";
import { localSecrets, ROOT, startService } from "./lib.mjs";
import { workerNodeArgs } from "./worker-node.mjs";

const dataDir = path.resolve(ROOT, process.env.FERRY_DATA_DIR ?? "data");
const env = {
  ...localSecrets(dataDir),
  DATABASE_FILE: process.env.DATABASE_FILE ?? path.join(dataDir, "ferry.db"),
  SANDBOX_URL: process.env.SANDBOX_URL ?? `http://127.0.0.1:${process.env.SANDBOX_PORT ?? 4010}`,
};
const worker = startService("worker", process.execPath, workerNodeArgs(path.join(ROOT, "server/migration/worker-main.ts")), { env, detached: false });
const forward = (signal) => worker.kill(signal);
process.on("SIGINT", () => forward("SIGINT"));
process.on("SIGTERM", () => forward("SIGTERM"));
worker.on("exit", (code) => process.exit(code ?? 0));
