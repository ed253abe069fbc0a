/**
 * The systemd units of deploy/systemd/ against the code they run: each service starts the same
 * entry point `npm start` supervises, is restarted on its own with a delay, and belongs to
 * ferry.target; the example environment is one Ferry accepts once its secrets are filled in (and
 * refuses as shipped); systemd's own checker finds nothing else wrong where it is installed.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { workerNodeArgs } from "../../scripts/worker-node.mjs";
import { EnvError, parseEnv } from "@/server/env";
import { generateKeySpec } from "@/server/security/secrets";

const DIR = path.join(process.cwd(), "deploy", "systemd");
const SERVICES = ["ferry-sandbox.service", "ferry-worker.service", "ferry-web.service"] as const;

/** A unit file as section → key → values (a key may repeat). */
function readUnit(file: string): Record<string, Record<string, string[]>> {
  const unit: Record<string, Record<string, string[]>> = {};
  let section = "";
  for (const raw of fs.readFileSync(path.join(DIR, file), "utf8").split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      unit[section] ??= {};
      continue;
    }
    const [key, ...rest] = line.split("=");
    ((unit[section] ??= {})[key!] ??= []).push(rest.join("="));
  }
  return unit;
}

/** The example environment file as variables (comments and blank lines left out). */
function readEnvExample(): Record<string, string> {
  const lines = fs.readFileSync(path.join(DIR, "ferry.env.example"), "utf8").split("\n");
  return Object.fromEntries(lines.filter((l) => l.trim() && !l.trim().startsWith("#")).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
}

describe("the systemd units", () => {
  it("start the entry points npm start supervises, from files that exist", () => {
    const start = fs.readFileSync(path.join(process.cwd(), "scripts", "start.mjs"), "utf8");
    const entries = SERVICES.map((s) => {
      const [exec] = readUnit(s).Service!.ExecStart!;
      const entry = exec!.split(" ").find((part) => /\.(mjs|ts)$/.test(part))!;
      expect(fs.existsSync(path.join(process.cwd(), entry)), `${s}: ${entry}`).toBe(true);
      expect(start, `${s}: npm start runs ${entry} too`).toContain(entry.replace("server/migration/", ""));
      return entry;
    });
    expect(entries).toEqual(["server/sandbox/main.ts", "server/migration/worker-main.ts", "scripts/web-server.mjs"]);
  });

  it("hold the worker's heap as npm start does (scripts/worker-node.mjs)", () => {
    const [exec] = readUnit("ferry-worker.service").Service!.ExecStart!;
    expect(exec!.split(" ")).toContain(workerNodeArgs("server/migration/worker-main.ts", {})[0]);
  });

  it("restart each process on its own after a delay, never giving up, and stop it with the target", () => {
    for (const s of SERVICES) {
      const unit = readUnit(s);
      expect({ s, restart: unit.Service!.Restart, delay: unit.Service!.RestartSec, giveUp: unit.Unit!.StartLimitIntervalSec, partOf: unit.Unit!.PartOf }).toEqual({
        s,
        restart: ["always"],
        delay: ["1s"],
        giveUp: ["0"],
        partOf: ["ferry.target"],
      });
      expect(unit.Service!.EnvironmentFile).toEqual(["/etc/ferry/ferry.env"]);
      expect(unit.Service!.UMask).toEqual(["0077"]);
      expect(unit.Install!.WantedBy).toEqual(["ferry.target"]);
    }
    expect(readUnit("ferry.target").Unit!.Wants![0]!.split(" ").sort()).toEqual([...SERVICES].sort());
  });

  it("come with an example environment Ferry refuses as shipped and accepts once its secrets are filled in", () => {
    const example = readEnvExample();
    expect(() => parseEnv(example)).toThrow(EnvError);
    expect(() => parseEnv(example)).toThrow(/NEXTAUTH_SECRET[\s\S]*FERRY_ENCRYPTION_KEY/);
    const filled = parseEnv({ ...example, NEXTAUTH_SECRET: "a-real-secret-of-enough-length", FERRY_ENCRYPTION_KEY: generateKeySpec("k1") });
    expect(filled).toMatchObject({ NODE_ENV: "production", TRUST_PROXY: 1, DATABASE_FILE: "/var/lib/ferry/ferry.db", SANDBOX_URL: "http://127.0.0.1:4010" });
    // The web server listens on loopback behind the proxy, where the sandbox is too.
    expect({ HOST: example.HOST, SANDBOX_HOST: example.SANDBOX_HOST }).toEqual({ HOST: "127.0.0.1", SANDBOX_HOST: "127.0.0.1" });
  });

  it("pass systemd-analyze verify where systemd is installed (only the newer restart keys may be unknown to an older systemd)", (ctx) => {
    const which = spawnSync("sh", ["-c", "command -v systemd-analyze"], { encoding: "utf8" });
    if (which.status !== 0) ctx.skip();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-units-"));
    try {
      for (const f of [...SERVICES, "ferry.target"]) fs.copyFileSync(path.join(DIR, f), path.join(dir, f));
      const res = spawnSync("systemd-analyze", ["verify", "--man=no", ...[...SERVICES, "ferry.target"].map((f) => path.join(dir, f))], { encoding: "utf8" });
      const problems = `${res.stdout}${res.stderr}`
        .split("\n")
        .filter(Boolean)
        .filter((l) => !/Unknown key '(RestartSteps|RestartMaxDelaySec)'/.test(l));
      expect(problems).toEqual([]);
      expect(res.status).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
