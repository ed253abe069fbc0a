/**
 * The web server's HOST (scripts/web-server.mjs): 0.0.0.0 opens it on every interface; a HOST that
 * is not an address stops it with a message naming HOST. (127.0.0.1 only, the default, is checked
 * on `npm start` in supervision.spec.ts.)
 */
import { spawn, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";

const ROOT = process.cwd();

/** A free TCP port. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** This machine's first address that is not loopback, if it has one. */
function externalAddress(): string | null {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  }
  return null;
}

test.describe("the web server's HOST", () => {
  const serverEnv = (dir: string, host: string): NodeJS.ProcessEnv => ({
    ...process.env,
    HOST: host,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    NEXTAUTH_SECRET: crypto.randomBytes(24).toString("base64url"),
    FERRY_ENCRYPTION_KEY: `host:${crypto.randomBytes(32).toString("base64")}`,
    DATABASE_FILE: path.join(dir, "ferry.db"),
  });

  test("HOST=0.0.0.0 opens it on every interface", async () => {
    const external = externalAddress();
    test.skip(!external, "this machine has no address but loopback");
    test.setTimeout(90_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-host-"));
    const port = await freePort();
    const web = spawn(process.execPath, ["scripts/web-server.mjs", "-p", String(port)], { cwd: ROOT, env: serverEnv(dir, "0.0.0.0"), stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    web.stdout!.on("data", (c: Buffer) => (out += c));
    web.stderr!.on("data", (c: Buffer) => (out += c));
    const exited = new Promise((resolve) => web.on("exit", resolve));
    try {
      await expect.poll(() => out, { timeout: 60_000 }).toContain(`listening on http://0.0.0.0:${port}`);
      const res = await fetch(`http://${external}:${port}/api/auth/csrf`);
      expect(res.status).toBe(200);
    } finally {
      web.kill("SIGTERM");
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a HOST that is not an address stops it with a message naming HOST", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-host-"));
    try {
      const res = spawnSync(process.execPath, ["scripts/web-server.mjs", "-p", String(await freePort())], { cwd: ROOT, env: serverEnv(dir, "every interface"), encoding: "utf8", timeout: 30_000 });
      expect(res.status).toBe(1);
      expect(res.stderr).toContain('HOST must be an address or host name to listen on (127.0.0.1, or 0.0.0.0 for every interface), not "every interface".');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
