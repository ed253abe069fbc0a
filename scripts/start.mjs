// `npm start`: Ferry on its embedded defaults — the sandbox (the service's API, port 4010), the
// app database migrated and seeded with demo data, the production build (rebuilt when sources
// changed), the migration worker and the web app (port 3000) — then prints where to sign in.
//   npm start            production build (scripts/web-server.mjs around `next`)
//   npm run dev          Next's dev server instead
// Environment (all optional): PORT, SANDBOX_PORT, FERRY_DATA_DIR (default ./data), DATABASE_FILE,
// DATABASE_URL (postgres://…: the app's data in PostgreSQL instead of SQLite), SANDBOX_DB_FILE, NEXTAUTH_URL, NEXTAUTH_SECRET, FERRY_ENCRYPTION_KEY, SANDBOX_ADMIN_TOKEN, SMTP_URL,
// TRUST_PROXY, HOST (the web server's interface, default 127.0.0.1).
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { BIN, buildIsStale, localSecrets, ROOT, run, tsNode, waitForHttp } from "./lib.mjs";
import { workerNodeArgs } from "./worker-node.mjs";
import { claimStateFile, createSupervisor, stopOnSignals } from "./supervisor.mjs";

const dev = process.argv.includes("--dev");
const port = Number(process.env.PORT ?? 3000);
const sandboxPort = Number(process.env.SANDBOX_PORT ?? 4010);
const dataDir = path.resolve(ROOT, process.env.FERRY_DATA_DIR ?? "data");
const appUrl = process.env.NEXTAUTH_URL ?? `http://localhost:${port}`;
// The web server listens on HOST (default 127.0.0.1); start-up asks it there (loopback for "every interface").
const webHost = process.env.HOST || "127.0.0.1";
const webProbe = webHost === "0.0.0.0" || webHost === "::" ? "127.0.0.1" : net.isIPv6(webHost) ? `[${webHost}]` : webHost;

// One Ferry per data directory: a second start is refused, naming the running one's pid; a
// processes.json left by a supervisor that died is cleaned up (its processes ended with it).
const stateFile = path.join(dataDir, "processes.json");
fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
const claim = await claimStateFile(stateFile);
if (!claim.ok) {
  console.error(claim.message);
  process.exit(1);
}

function portInUse(p) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(true));
    srv.listen(p, "0.0.0.0", () => srv.close(() => resolve(false)));
  });
}

for (const [name, p] of [["PORT", port], ["SANDBOX_PORT", sandboxPort]]) {
  if (await portInUse(p)) {
    console.error(`Port ${p} is already in use. Stop what is using it, or set ${name} to another port.`);
    fs.rmSync(stateFile, { force: true });
    process.exit(1);
  }
}

const env = {
  NEXT_TELEMETRY_DISABLED: "1",
  ...localSecrets(dataDir),
  DATABASE_FILE: process.env.DATABASE_FILE ?? path.join(dataDir, "ferry.db"),
  SANDBOX_DB_FILE: process.env.SANDBOX_DB_FILE ?? path.join(dataDir, "sandbox.db"),
  SANDBOX_PORT: String(sandboxPort),
  SANDBOX_URL: process.env.SANDBOX_URL ?? `http://127.0.0.1:${sandboxPort}`,
  NEXTAUTH_URL: appUrl,
  PORT: String(port),
};

// Each process is supervised (scripts/supervisor.mjs): once Ferry has started, one that ends is
// started again after a growing delay while the others go on; Ctrl+C or SIGTERM stops them all.
// Their pids are kept in <data dir>/processes.json (mode 0600) while Ferry runs.
const supervisor = createSupervisor({
  stateFile,
  onExitWhileStarting: ({ label, how }) => {
    console.error(`${label} ${how} while Ferry was starting; stopping Ferry.`);
    void shutdown(1);
  },
});
const shutdown = async (code) => {
  await supervisor.stop();
  process.exit(code);
};
stopOnSignals(supervisor, {
  onSignal: (signal) => console.log(`Stopping Ferry (${signal})…`),
  onStopped: () => console.log("Ferry stopped."),
});

const postgresUrl = process.env.DATABASE_URL?.trim();
// The password of a PostgreSQL URL stays out of the terminal.
const pgLabel = (url) => {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "the DATABASE_URL given";
  }
};
console.log(`Ferry: data in ${path.relative(ROOT, dataDir) || "."}/${postgresUrl ? `, the app's database in PostgreSQL at ${pgLabel(postgresUrl)}` : ""}`);
supervisor.add({ name: "sandbox", label: "The sandbox", ...tsNode("server/sandbox/main.ts"), env });
try {
  await waitForHttp(`${env.SANDBOX_URL}/companies`);
} catch (error) {
  console.error(`The sandbox did not start: ${error.message}`);
  await shutdown(1);
}

if (run(BIN("tsx"), ["scripts/seed.ts"], { env }) !== 0) {
  console.error("Preparing the database failed (see above).");
  await shutdown(1);
}

if (!dev && buildIsStale()) {
  console.log("Building the web app (next build)…");
  if (run(BIN("next"), ["build"], { env }) !== 0) {
    console.error("The build failed (see above).");
    await shutdown(1);
  }
}

const workerEntry = path.join(ROOT, "server/migration/worker-main.ts");
if (fs.existsSync(workerEntry)) supervisor.add({ name: "worker", label: "The worker", command: process.execPath, args: workerNodeArgs(workerEntry), env });

// Ferry's own server around Next (it records each request's socket address: scripts/web-server.mjs).
supervisor.add({ name: "web", label: "The web app", command: process.execPath, args: ["scripts/web-server.mjs", ...(dev ? ["--dev"] : []), "-p", String(port)], env });
try {
  await waitForHttp(`http://${webProbe}:${port}/api/auth/csrf`, { timeoutMs: 120_000 });
} catch (error) {
  console.error(`The web app did not start: ${error.message}`);
  await shutdown(1);
}
supervisor.startupDone();

// Only what a newcomer needs; the demo passwords are public demo data, not secrets.
const DEMO_LOGINS = JSON.parse(fs.readFileSync(path.join(ROOT, "server", "demo", "demo-logins.json"), "utf8"));
console.log(`
  Ferry is running: ${appUrl}

  Sign in as:
${DEMO_LOGINS.map((l) => `    ${l.role.padEnd(9)} ${l.email.padEnd(20)} ${l.password}${l.organization ? `  (${l.organization})` : ""}`).join("\n")}

  Sandbox (the service's API): ${env.SANDBOX_URL}   admin token: in ${path.relative(ROOT, path.join(dataDir, "local-secrets.json"))}
  Mail without SMTP_URL lands in the outbox: ${appUrl}/admin/outbox
  Stop with Ctrl+C.
`);
