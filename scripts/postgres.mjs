// A throwaway PostgreSQL server for tests: Debian's `postgresql` binaries run as a cluster of their
// own in a temporary folder, on a random loopback port, with trust authentication, removed again on
// stop. It never touches a system cluster (no service, no /var/lib/postgresql).
//   node scripts/postgres.mjs            start one, print its DATABASE_URL, stop it on Ctrl+C/SIGTERM
//   node scripts/postgres.mjs --ensure   only make sure the binaries are installed (as root on Debian: apt-get)
// Plain ESM (Node 20 runs it as is); scripts/test.mjs and server/testing/pg.ts import it.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./lib.mjs";

const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

function isDebianLike() {
  try {
    return /^(ID|ID_LIKE)=.*\b(debian|ubuntu)\b/m.test(fs.readFileSync("/etc/os-release", "utf8"));
  } catch {
    return false;
  }
}

/** The folder holding initdb, pg_ctl and postgres (FERRY_PG_BIN, else Debian's newest major), or null. */
export function findPostgresBin() {
  const has = (dir) => ["initdb", "pg_ctl", "postgres"].every((b) => fs.existsSync(path.join(dir, b)));
  if (process.env.FERRY_PG_BIN) return has(process.env.FERRY_PG_BIN) ? process.env.FERRY_PG_BIN : null;
  const base = "/usr/lib/postgresql";
  let majors = [];
  try {
    majors = fs.readdirSync(base).filter((v) => /^\d+$/.test(v));
  } catch {
    return null;
  }
  majors.sort((a, b) => Number(b) - Number(a));
  return majors.map((v) => path.join(base, v, "bin")).find(has) ?? null;
}

const WHAT_TO_INSTALL = isDebianLike()
  ? "Install Debian's PostgreSQL server with `sudo apt-get install -y postgresql` (or set FERRY_PG_BIN to a folder holding initdb, pg_ctl and postgres) and run the tests again."
  : "Install the PostgreSQL server (initdb, pg_ctl, postgres; version 13 or newer) and set FERRY_PG_BIN to the folder holding them, then run the tests again.";

/**
 * The PostgreSQL binaries' folder, installing Debian's `postgresql` package when they are missing
 * and this runs as root on Debian (as the test runner does for Chromium); throws with what to
 * install otherwise. `install: false` only looks (test processes running side by side must not
 * race each other through apt-get; `npm test` installs before they start).
 */
export function ensurePostgres({ log = console.log, install = true } = {}) {
  const found = findPostgresBin();
  if (found) return found;
  if (install && !process.env.FERRY_PG_BIN && isDebianLike() && isRoot()) {
    log("No PostgreSQL server found: installing Debian's postgresql package (apt-get install -y postgresql)…");
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const update = spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
    const install = update.status === 0 ? spawnSync("apt-get", ["install", "-y", "-qq", "postgresql"], { stdio: "inherit", env }) : update;
    const bin = findPostgresBin();
    if (install.status === 0 && bin) return bin;
    throw new Error("Installing the postgresql package with apt-get failed; install it (apt-get install -y postgresql) and run the tests again.");
  }
  throw new Error(`No PostgreSQL server found. ${WHAT_TO_INSTALL}`);
}

/**
 * The server refuses to run as root: as root its binaries run as the `postgres` user (made by
 * Debian's package), which must own the cluster's folder.
 */
function asServerUser(bin, args) {
  if (!isRoot()) return { command: bin, args };
  return { command: "runuser", args: ["-u", "postgres", "--", bin, ...args] };
}

function runChecked(bin, args, what) {
  const { command, args: full } = asServerUser(bin, args);
  const res = spawnSync(command, full, { encoding: "utf8" });
  if (res.status !== 0) {
    const output = `${res.stdout ?? ""}${res.stderr ?? ""}`.trim() || String(res.error ?? "");
    throw new Error(`${what} failed (${path.basename(bin)} exited with ${res.status ?? res.signal}): ${output}`);
  }
}

/**
 * Starts a throwaway cluster and resolves to its URL (superuser `ferry`, database `postgres`) and
 * a `stop()` that shuts it down and removes its folder. A cluster still running when this process
 * exits is stopped then too.
 */
export async function startPostgres({ log = () => {}, install = true } = {}) {
  const bin = ensurePostgres({ log, install });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-pg-"));
  const data = path.join(dir, "data");
  if (isRoot()) {
    const owner = spawnSync("chown", ["postgres:", dir]);
    if (owner.status !== 0) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw new Error("Could not give the throwaway cluster's folder to the postgres user (is Debian's postgresql package installed?)");
    }
  }
  let running = false;
  const stopSync = () => {
    if (running) {
      running = false;
      // Immediate: the cluster is thrown away, nothing needs a clean checkpoint.
      const { command, args } = asServerUser(path.join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]);
      spawnSync(command, args, { stdio: "ignore" });
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const onExit = () => stopSync();
  try {
    runChecked(path.join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "ferry", "-E", "UTF8", "--locale=C", "--no-sync"], "initdb");
    // A test cluster: durability traded for speed (fsync off), enough connections for a database per test file.
    const options = [
      "-c listen_addresses=127.0.0.1",
      `-k '${dir}'`,
      "-c fsync=off",
      "-c synchronous_commit=off",
      "-c full_page_writes=off",
      "-c max_connections=300",
    ];
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      try {
        runChecked(path.join(bin, "pg_ctl"), ["-D", data, "-w", "-t", "60", "-l", path.join(dir, "server.log"), "-o", `-p ${port} ${options.join(" ")}`, "start"], "Starting PostgreSQL");
        running = true;
        process.once("exit", onExit);
        const url = `postgres://ferry@127.0.0.1:${port}/postgres`;
        log(`PostgreSQL (${bin}) on ${url}, cluster in ${dir}`);
        return {
          url,
          port,
          dir,
          stop: async () => {
            process.removeListener("exit", onExit);
            stopSync();
          },
        };
      } catch (error) {
        // Another process may have taken the free port between the probe and the start.
        const serverLog = fs.existsSync(path.join(dir, "server.log")) ? fs.readFileSync(path.join(dir, "server.log"), "utf8") : "";
        if (attempt < 3 && /could not bind|address already in use/i.test(serverLog)) continue;
        throw new Error(`${error.message}${serverLog ? `\n${serverLog.trim()}` : ""}`);
      }
    }
  } catch (error) {
    stopSync();
    throw error;
  }
}

/** Stops a cluster started by startPostgres and removes its folder. */
export async function stopPostgres(server) {
  await server.stop();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    if (process.argv.includes("--ensure")) {
      console.log(`PostgreSQL binaries: ${ensurePostgres()}`);
    } else {
      const started = Date.now();
      const server = await startPostgres({ log: console.log });
      console.log(`Started in ${((Date.now() - started) / 1000).toFixed(1)} s. DATABASE_URL=${server.url}`);
      console.log("Ctrl+C stops it and removes its folder.");
      const stop = async () => {
        await server.stop();
        process.exit(0);
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      setInterval(() => {}, 1 << 30);
    }
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
