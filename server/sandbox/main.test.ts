/**
 * `npm run sandbox` (server/sandbox/main.ts) as a real process: what it prints ends up in server
 * logs (`npm start` prefixes it into its own), so it says where the admin token and the demo
 * client's API key are kept, never their values; and its database file, with its -wal and -shm
 * files, is readable by its owner only, in a folder only its owner can enter.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "@/server/testing/until";

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-sandbox-main-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type Run = { output: string; url: string; stop: () => Promise<number | null> };

/** Starts the sandbox's main as `npm run sandbox` does (tsx), on a free port; resolves once it listens. */
async function startMain(env: Record<string, string>): Promise<Run> {
  const child = spawn(process.execPath, ["--import", "tsx", "server/sandbox/main.ts"], {
    cwd: process.cwd(),
    env: { ...process.env, SANDBOX_PORT: "0", SANDBOX_ADMIN_TOKEN: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c));
  child.stderr.on("data", (c: Buffer) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  // The whole banner: its last line comes after the values that used to be printed.
  await until("the sandbox's banner", () => output, (o) => o.includes("Authorization for the API"), 30_000);
  const url = output.match(/listening on (\S+)/)![1]!;
  return {
    get output() {
      return output;
    },
    url,
    stop: async () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

const meta = (dbFile: string, key: string): string => {
  const db = new Database(dbFile, { readonly: true });
  try {
    return (db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string }).value;
  } finally {
    db.close();
  }
};

describe("npm run sandbox", () => {
  it("prints where the admin token it was given and the demo client's API key are kept, never the values", async () => {
    const dbFile = path.join(dir, "given", "sandbox.db");
    const adminToken = "given-admin-token-0123456789abcdef";
    const run = await startMain({ SANDBOX_DB_FILE: dbFile, SANDBOX_ADMIN_TOKEN: adminToken });
    const demoKey = meta(dbFile, "demo_api_key");
    // The values it keeps work (so the test reads the real ones), and none is in its output.
    expect((await fetch(`${run.url}/_sandbox/state`, { headers: { authorization: `Bearer ${adminToken}` } })).status).toBe(200);
    expect((await fetch(`${run.url}/companies`, { headers: { authorization: `Basic ${Buffer.from(demoKey).toString("base64")}` } })).status).toBe(200);
    expect(await run.stop()).toBe(0);
    expect(run.output).not.toContain(adminToken);
    expect(run.output).not.toContain(demoKey);
    expect(run.output).toContain("Admin token for the /_sandbox controls: in SANDBOX_ADMIN_TOKEN");
    expect(run.output).toContain(`Demo client's API key: in the database, meta key "demo_api_key"`);
    expect(run.output).toContain(`Database: ${dbFile}`);
  });

  it("without SANDBOX_ADMIN_TOKEN, says the generated token is kept in its database, and prints neither it nor the demo key", async () => {
    const dbFile = path.join(dir, "generated", "sandbox.db");
    const run = await startMain({ SANDBOX_DB_FILE: dbFile });
    const adminToken = meta(dbFile, "admin_token");
    const demoKey = meta(dbFile, "demo_api_key");
    expect((await fetch(`${run.url}/_sandbox/state`, { headers: { authorization: `Bearer ${adminToken}` } })).status).toBe(200);
    expect(await run.stop()).toBe(0);
    expect(adminToken.length).toBeGreaterThan(20);
    expect(run.output).not.toContain(adminToken);
    expect(run.output).not.toContain(demoKey);
    expect(run.output).toContain(`Admin token for the /_sandbox controls: in the database, meta key "admin_token"`);
  });

  it("creates its database, -wal and -shm files readable by their owner only (0600), in a new folder only its owner can enter (0700)", async () => {
    const folder = path.join(dir, "fresh", "data");
    const dbFile = path.join(folder, "sandbox.db");
    const run = await startMain({ SANDBOX_DB_FILE: dbFile });
    try {
      // A write goes through the WAL, so all three files exist while it runs.
      const created = await fetch(`${run.url}/_sandbox/clients`, {
        method: "POST",
        headers: { authorization: `Bearer ${meta(dbFile, "admin_token")}`, "content-type": "application/json" },
        body: JSON.stringify({ plan: "free" }),
      });
      expect(created.status).toBe(201);
      expect(fs.statSync(folder).mode & 0o777).toBe(0o700);
      for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) expect({ f, mode: fs.statSync(f).mode & 0o777 }).toEqual({ f, mode: 0o600 });
    } finally {
      await run.stop();
    }
  });

  it("narrows a database file made before (0644) to 0600 when it opens it", async () => {
    const dbFile = path.join(dir, "older", "sandbox.db");
    fs.mkdirSync(path.dirname(dbFile), { recursive: true });
    new Database(dbFile).close();
    fs.chmodSync(dbFile, 0o644);
    const run = await startMain({ SANDBOX_DB_FILE: dbFile });
    await run.stop();
    expect(fs.statSync(dbFile).mode & 0o777).toBe(0o600);
  });
});
