import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { organizations } from "./schema";
import { openDb } from "./client";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describe("the database file", () => {
  it("and its -wal and -shm are readable by their owner only", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-perm-"));
    dirs.push(dir);
    const file = path.join(dir, "data", "ferry.db");
    const db = openDb(file);
    db.insert(organizations).values({ name: "Perm Org" }).run();
    try {
      for (const f of [file, `${file}-wal`, `${file}-shm`]) expect([f, modeOf(f)]).toEqual([f, 0o600]);
      expect(modeOf(path.dirname(file))).toBe(0o700);
    } finally {
      db.$client.close();
    }
  });

  it("created earlier with wider permissions is narrowed when opened", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-perm-"));
    dirs.push(dir);
    const file = path.join(dir, "ferry.db");
    fs.writeFileSync(file, "");
    fs.chmodSync(file, 0o644);
    const db = openDb(file);
    try {
      expect(modeOf(file)).toBe(0o600);
    } finally {
      db.$client.close();
    }
  });
});

describe("transactions across processes", () => {
  it("take the write lock as they begin, so another connection's write cannot slip in between a read and a write", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-lock-"));
    dirs.push(dir);
    const file = path.join(dir, "ferry.db");
    const web = openDb(file);
    const worker = openDb(file, { migrate: false });
    worker.$client.pragma("busy_timeout = 0");
    try {
      web.transaction((tx) => {
        tx.select().from(organizations).all();
        // Another process (here: another connection) tries to write meanwhile: it must wait its turn.
        expect(() => worker.insert(organizations).values({ name: "Worker Org" }).run()).toThrow(/database is locked/);
        tx.insert(organizations).values({ name: "Web Org" }).run();
      });
      worker.insert(organizations).values({ name: "Worker Org" }).run();
      expect(web.select().from(organizations).all().map((o) => o.name).sort()).toEqual(["Web Org", "Worker Org"]);
    } finally {
      worker.$client.close();
      web.$client.close();
    }
  });
});
