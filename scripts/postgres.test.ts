/**
 * The throwaway PostgreSQL of the tests (scripts/postgres.mjs), started for real: it answers on
 * loopback only, its folder belongs to the server's user, stop() shuts it down and removes the
 * folder, the CLI does the same on SIGTERM, and missing binaries are named with what to install.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { until } from "@/server/testing/until";
import { ensurePostgres, findPostgresBin, startPostgres } from "./postgres.mjs";

/** True when something accepts TCP connections on host:port. */
function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(2000);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

const otherAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((i) => i && i.family === "IPv4" && !i.internal)?.address;

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("the throwaway PostgreSQL", () => {
  it("runs in a folder of its own on a random loopback port, and stop() shuts it down and removes the folder", async () => {
    const server = await startPostgres();
    let stopped = false;
    try {
      expect(server.url).toMatch(/^postgres:\/\/ferry@127\.0\.0\.1:\d+\/postgres$/);
      expect(fs.existsSync(path.join(server.dir, "data", "PG_VERSION"))).toBe(true);
      if (process.getuid?.() === 0) expect(fs.statSync(server.dir).uid).not.toBe(0);

      const client = new Client({ connectionString: server.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ user: string; fsync: string }>("SELECT current_user AS user, current_setting('fsync') AS fsync");
        expect(rows).toEqual([{ user: "ferry", fsync: "off" }]);
      } finally {
        await client.end();
      }
      if (otherAddress) expect(await answers(otherAddress, server.port)).toBe(false);

      await server.stop();
      stopped = true;
      expect(fs.existsSync(server.dir)).toBe(false);
      expect(await answers("127.0.0.1", server.port)).toBe(false);
    } finally {
      if (!stopped) await server.stop();
    }
  });

  it("as a command prints its DATABASE_URL, and on SIGTERM stops and removes its folder", async () => {
    const child = spawn(process.execPath, ["scripts/postgres.mjs"], { cwd: process.cwd(), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      await until("the DATABASE_URL line", () => output, (o) => /DATABASE_URL=\S+/.test(o) || child.exitCode !== null);
      const url = /DATABASE_URL=(\S+)/.exec(output)?.[1];
      const dir = /cluster in (\S+)/.exec(output)?.[1];
      expect(url, output).toBeDefined();
      const client = new Client({ connectionString: url });
      await client.connect();
      await client.end();

      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(fs.existsSync(dir as string)).toBe(false);
      expect(await answers("127.0.0.1", Number(new URL(url as string).port))).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });

  it("names what to install when the server's binaries are not there", () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-no-pg-"));
    try {
      vi.stubEnv("FERRY_PG_BIN", empty);
      expect(findPostgresBin()).toBeNull();
      expect(() => ensurePostgres({ log: () => {} })).toThrow(/No PostgreSQL server found\. .*(apt-get install -y postgresql|FERRY_PG_BIN)/);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
