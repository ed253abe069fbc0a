// The server Playwright tests run against: a throwaway data directory, a real sandbox on a random
// port, the app database migrated and seeded with the demo data, the migration worker, and the
// built app (Ferry's web server around Next, scripts/web-server.mjs). The sandbox's URL and its
// control token (tests make simulated tenants, rotate them, set faults) are published in
// .tmp/e2e-<port>.json for e2e/fixtures.ts; everything else the tests set up goes through the app's
// own API, as people would. No test-only route exists.
// Needs `next build` first (npm test does it).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BIN, freePort, newKeySpec, ROOT, run, tsNode, waitForHttp } from "./lib.mjs";
import { createSupervisor } from "./supervisor.mjs";
import { workerNodeArgs } from "./worker-node.mjs";

const port = Number(process.env.E2E_PORT ?? 3100);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-e2e-"));
const sandboxPort = await freePort();
const env = {
  NODE_ENV: "production",
  NEXT_TELEMETRY_DISABLED: "1",
  NEXTAUTH_URL: `http://127.0.0.1:${port}`,
  NEXTAUTH_SECRET: "e2e-secret-0123456789abcdef",
  FERRY_ENCRYPTION_KEY: newKeySpec("e2e"),
  DATABASE_FILE: path.join(dataDir, "ferry.db"),
  SANDBOX_PORT: String(sandboxPort),
  SANDBOX_DB_FILE: path.join(dataDir, "sandbox.db"),
  SANDBOX_ADMIN_TOKEN: "e2e-sandbox-admin-token",
  SANDBOX_URL: `http://127.0.0.1:${sandboxPort}`,
  // The worker delivers the outbox's mail: journeys that read the outbox find it delivered at once.
  FERRY_MAIL_EVERY_MS: "250",
  // The sandbox posts its webhooks here (each bulk run registers its consumers), as the service
  // would to Ferry's public URL.
  FERRY_PUBLIC_URL: `http://127.0.0.1:${port}`,
};

const published = path.join(ROOT, ".tmp", `e2e-${port}.json`);
// The same supervision as `npm start` (scripts/supervisor.mjs): a process that dies during the run
// is started again, with a line on stderr (which Playwright shows). Its children stay in its
// process group, so Playwright's SIGTERM to the group reaches them too; the data is deleted once
// they have stopped.
const supervisor = createSupervisor({
  onExitWhileStarting: ({ label, how }) => {
    console.error(`${label} ${how} while the e2e server was starting.`);
    void stop(1);
  },
});
const stop = async (code = 0) => {
  await supervisor.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(published, { force: true });
  process.exit(code);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
const service = (name, label, command, args, options = {}) => supervisor.add({ name, label, command, args, env, detached: false, ...options });

const hasSandbox = fs.existsSync(path.join(ROOT, "server", "sandbox", "main.ts"));
if (hasSandbox) {
  const { command, args } = tsNode("server/sandbox/main.ts");
  service("sandbox", "The sandbox", command, args, { quiet: true });
  await waitForHttp(`${env.SANDBOX_URL}/companies`);
}
const seedEnv = hasSandbox ? env : { ...env, SANDBOX_ADMIN_TOKEN: "" };
if (run(BIN("tsx"), ["scripts/seed.ts"], { env: seedEnv }) !== 0) {
  console.error("Seeding the e2e database failed");
  await stop(1);
}
fs.mkdirSync(path.dirname(published), { recursive: true });
fs.writeFileSync(
  published,
  JSON.stringify({ sandboxUrl: env.SANDBOX_URL, sandboxAdminToken: env.SANDBOX_ADMIN_TOKEN }),
  { mode: 0o600 },
);
const workerEntry = path.join(ROOT, "server/migration/worker-main.ts");
if (fs.existsSync(workerEntry)) {
  service("worker", "The worker", process.execPath, workerNodeArgs(workerEntry));
}
service("web", "The web app", process.execPath, ["scripts/web-server.mjs", "-p", String(port), "-H", "127.0.0.1"]);
await waitForHttp(`http://127.0.0.1:${port}/api/auth/csrf`, { timeoutMs: 120_000 });
supervisor.startupDone();
