/**
 * The migration that gives service targets an organisation, run on a real SQLite file that holds
 * data from before it: the migrations up to the one before are applied, rows are written as that
 * schema had them, and then the new migration runs over them.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { afterEach, describe, expect, it } from "vitest";

const MIGRATIONS = path.join(process.cwd(), "db", "migrations");
const TAG = "targets_per_organisation";

type Journal = { entries: { idx: number; tag: string }[] };

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A copy of the migrations folder whose journal ends just before this migration. */
function migrationsBefore(tag: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-migrations-"));
  dirs.push(dir);
  fs.cpSync(MIGRATIONS, dir, { recursive: true });
  const journalFile = path.join(dir, "meta", "_journal.json");
  const journal = JSON.parse(fs.readFileSync(journalFile, "utf8")) as Journal;
  const at = journal.entries.findIndex((e) => e.tag.endsWith(tag));
  expect(at, `a migration tagged …${tag}`).toBeGreaterThan(0);
  fs.writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
  return dir;
}

function openFile(): Database.Database {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-migrate-"));
  dirs.push(dir);
  const sqlite = new Database(path.join(dir, "ferry.db"));
  sqlite.pragma("foreign_keys = ON");
  return sqlite;
}

describe("targets get an organisation (migration)", () => {
  it("moves a target used by one organisation's engagements (now or in a run) to it, and leaves the others unassigned", () => {
    const sqlite = openFile();
    try {
      migrate(drizzle(sqlite), { migrationsFolder: migrationsBefore(TAG) });
      const now = Date.now();
      const org = sqlite.prepare("INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)");
      org.run("acme", "Acme Lending", now);
      org.run("bluebird", "Bluebird Commerce", now);
      sqlite.prepare("INSERT INTO users (id, email, name, role, created_at) VALUES ('sam', 'sam@ferry.test', 'Sam', 'support', ?)").run(now);
      const target = sqlite.prepare("INSERT INTO service_targets (id, name, base_url, api_key_cipher, api_key_mask, kind, created_at) VALUES (?, ?, ?, 'v1.k.iv.ct.tag', '••••1234', ?, ?)");
      target.run("acme-prod", "Production — Acme", "https://api.codat.io", "service", now);
      target.run("shared", "Production — shared", "https://api.codat.io", "service", now);
      target.run("old-run", "Staging used by an old run", "https://staging.example.test", "service", now);
      target.run("bluebird-past", "Bluebird's, only in a past run", "https://api.codat.io", "service", now);
      target.run("unused", "Never used", "https://api.codat.io", "service", now);
      target.run("sandbox", "Ferry sandbox", "http://127.0.0.1:4010", "sandbox", now);
      const engagement = sqlite.prepare(
        "INSERT INTO engagements (id, reference, organization_id, platform_key, owner_id, service_target_id, created_at, updated_at) VALUES (?, ?, ?, 'qhyg', 'sam', ?, ?, ?)",
      );
      engagement.run("a1", "FER-1", "acme", "acme-prod", now, now);
      engagement.run("a2", "FER-2", "acme", "acme-prod", now, now);
      engagement.run("a3", "FER-3", "acme", "shared", now, now);
      engagement.run("b1", "FER-4", "bluebird", "shared", now, now);
      engagement.run("a4", "FER-5", "acme", "old-run", now, now);
      engagement.run("b2", "FER-6", "bluebird", "sandbox", now, now);
      engagement.run("a5", "FER-7", "acme", "sandbox", now, now);
      engagement.run("b3", "FER-8", "bluebird", null, now, now);
      const run = sqlite.prepare("INSERT INTO migration_runs (id, engagement_id, kind, status, service_target_id, requested_at, updated_at) VALUES (?, ?, 'pilot', 'completed', ?, ?, ?)");
      // Bluebird ran against the staging target before Acme's engagement pointed at it.
      run.run("r1", "b1", "old-run", now, now);
      // Bluebird's engagement has since moved to the sandbox; its past run named this target.
      run.run("r2", "b3", "bluebird-past", now, now);

      migrate(drizzle(sqlite), { migrationsFolder: MIGRATIONS });

      const rows = sqlite.prepare("SELECT id, organization_id, built_in, archived_at, requests_per_minute, daily_quota FROM service_targets ORDER BY id").all();
      expect(rows).toEqual([
        { id: "acme-prod", organization_id: "acme", built_in: 0, archived_at: null, requests_per_minute: null, daily_quota: null },
        { id: "bluebird-past", organization_id: "bluebird", built_in: 0, archived_at: null, requests_per_minute: null, daily_quota: null },
        { id: "old-run", organization_id: null, built_in: 0, archived_at: null, requests_per_minute: null, daily_quota: null },
        { id: "sandbox", organization_id: null, built_in: 0, archived_at: null, requests_per_minute: null, daily_quota: null },
        { id: "shared", organization_id: null, built_in: 0, archived_at: null, requests_per_minute: null, daily_quota: null },
        { id: "unused", organization_id: null, built_in: 0, archived_at: null, requests_per_minute: null, daily_quota: null },
      ]);
      // Nothing else moved: every engagement still points where it did.
      expect(sqlite.prepare("SELECT id, service_target_id FROM engagements ORDER BY id").all()).toEqual([
        { id: "a1", service_target_id: "acme-prod" },
        { id: "a2", service_target_id: "acme-prod" },
        { id: "a3", service_target_id: "shared" },
        { id: "a4", service_target_id: "old-run" },
        { id: "a5", service_target_id: "sandbox" },
        { id: "b1", service_target_id: "shared" },
        { id: "b2", service_target_id: "sandbox" },
        { id: "b3", service_target_id: null },
      ]);
    } finally {
      sqlite.close();
    }
  });

  it("allows one built-in target at most", () => {
    const sqlite = openFile();
    try {
      migrate(drizzle(sqlite), { migrationsFolder: MIGRATIONS });
      const insert = sqlite.prepare("INSERT INTO service_targets (id, name, base_url, api_key_cipher, kind, built_in, created_at) VALUES (?, 'Sandbox', 'http://127.0.0.1:4010', 'c', 'sandbox', ?, 0)");
      insert.run("one", 1);
      insert.run("other", 0);
      expect(() => insert.run("two", 1)).toThrow(/UNIQUE constraint failed/);
    } finally {
      sqlite.close();
    }
  });
});
