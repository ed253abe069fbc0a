// Shared helpers of Ferry's scripts (start, e2e server, test runner). Plain ESM: Node 20 runs it as is.
import { spawn, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const BIN = (name) => path.join(ROOT, "node_modules", ".bin", name);

/** A free TCP port on loopback. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves once `url` answers any HTTP status, or rejects after `timeoutMs`. */
export async function waitForHttp(url, { timeoutMs = 60_000, child } = {}) {
  const started = Date.now();
  for (;;) {
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      throw new Error(`${url}: the process ${child.signalCode ? `was killed by ${child.signalCode}` : `exited with code ${child.exitCode}`} before it answered`);
    }
    try {
      await fetch(url, { signal: AbortSignal.timeout(2000) });
      return;
    } catch {
      if (Date.now() - started > timeoutMs) throw new Error(`${url} did not answer within ${timeoutMs / 1000}s`);
      await new Promise((r) => setTimeout(r, 150));
    }
  }
}

/**
 * Starts a long-running service, prefixing its output lines with a label. By default in its own
 * process group, so the supervisor (scripts/supervisor.mjs) can stop whatever it forked too
 * (`next` forks next-server: stack-notes P14); `detached: false` keeps it in ours, for a parent
 * that is itself stopped as a group. `ipc: true` gives a Node process an IPC channel (the
 * supervisor's lifeline, scripts/lifeline.mjs).
 */
export function startService(label, command, args, { env, quiet = false, detached = true, ipc = false } = {}) {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, detached, stdio: ["ignore", "pipe", "pipe", ...(ipc ? ["ipc"] : [])] });
  const prefix = (stream, out) => {
    let buf = "";
    stream.on("data", (chunk) => {
      buf += chunk;
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (!quiet) out.write(`[${label}] ${line}\n`);
      }
    });
    // A last line without its newline (a process killed mid-write) is still shown.
    stream.on("end", () => {
      if (buf && !quiet) out.write(`[${label}] ${buf}\n`);
      buf = "";
    });
  };
  prefix(child.stdout, process.stdout);
  prefix(child.stderr, process.stderr);
  return child;
}

/**
 * A TypeScript entry point run by Node itself with tsx's loader (`node --import tsx file.ts`): one
 * process whose pid is the program's, where the `tsx` command would put a process of its own in
 * front of it.
 */
export const tsNode = (entry) => ({ command: process.execPath, args: ["--import", "tsx", entry] });

/** Runs a command to completion with inherited output; returns its exit code. */
export function run(command, args, { env } = {}) {
  const res = spawnSync(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: "inherit" });
  return res.status ?? 1;
}

/**
 * Runs a command to completion beside others, each line of its output prefixed with `label` (so
 * two at once stay readable); resolves to its exit code.
 */
export function runLabelled(label, command, args, { env } = {}) {
  return new Promise((resolve) => {
    const child = startService(label, command, args, { env, detached: false });
    child.once("error", () => resolve(1));
    child.once("close", (code) => resolve(code ?? 1));
  });
}

/** A new random encryption key spec `<id>:<base64 32 bytes>` (see server/security/secrets.ts). */
export function newKeySpec(id = "local1") {
  return `${id}:${crypto.randomBytes(32).toString("base64")}`;
}

/**
 * The embedded default's secrets: kept in <dataDir>/local-secrets.json (mode 0600) so sessions
 * and encrypted values survive restarts. Values already in the environment win.
 */
export function localSecrets(dataDir) {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, "local-secrets.json");
  let stored = {};
  if (fs.existsSync(file)) stored = JSON.parse(fs.readFileSync(file, "utf8"));
  const secrets = {
    NEXTAUTH_SECRET: stored.NEXTAUTH_SECRET ?? crypto.randomBytes(32).toString("base64url"),
    FERRY_ENCRYPTION_KEY: stored.FERRY_ENCRYPTION_KEY ?? newKeySpec(),
    SANDBOX_ADMIN_TOKEN: stored.SANDBOX_ADMIN_TOKEN ?? crypto.randomBytes(24).toString("base64url"),
  };
  fs.writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return Object.fromEntries(Object.entries(secrets).map(([k, v]) => [k, process.env[k] ?? v]));
}

/** Newest modification time (ms) under the given paths, skipping node_modules and dot-folders. */
export function newestMtime(paths) {
  let newest = 0;
  const walk = (p) => {
    let st;
    try {
      st = fs.statSync(p);
    } catch {
      return;
    }
    if (st.isDirectory()) {
      for (const name of fs.readdirSync(p)) {
        if (name === "node_modules" || name.startsWith(".")) continue;
        walk(path.join(p, name));
      }
    } else if (st.mtimeMs > newest) newest = st.mtimeMs;
  };
  for (const p of paths) walk(path.join(ROOT, p));
  return newest;
}

/** True when `next build` output is missing or older than the app's sources. */
export function buildIsStale() {
  const buildId = path.join(ROOT, ".next", "BUILD_ID");
  if (!fs.existsSync(buildId)) return true;
  const built = fs.statSync(buildId).mtimeMs;
  return newestMtime(["app", "server", "db", "core", "next.config.js", "proxy.ts", "package.json", "postcss.config.mjs", "instrumentation.ts"]) > built;
}
