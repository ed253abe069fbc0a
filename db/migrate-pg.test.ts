/**
 * The committed PostgreSQL migrations on a real throwaway server: the database they build is the
 * one db/schema.pg.ts describes (columns, types, defaults, indexes, constraints, read back from the
 * server's own catalog), rows written through drizzle read back with the same JavaScript values and
 * types as on SQLite, and `npm run db:migrate` applies them to DATABASE_URL (twice, and from two
 * processes at once, harmlessly).
 * @module-tag postgresql
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { asc, eq, is, isTable, SQL } from "drizzle-orm";
import { getTableConfig, PgDialect, type PgTable } from "drizzle-orm/pg-core";
import { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmptyPgDatabase, createPgTestDb, type PgTestDb } from "@/server/testing/pg";
import { openDb, type Db } from "./client";
import * as pgSchema from "./schema.pg";
import * as sqliteSchema from "./schema.sqlite";

let pg: PgTestDb;
let sqlite: Db;
let sqliteDir: string;

beforeAll(async () => {
  pg = await createPgTestDb();
  sqliteDir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-dialects-"));
  sqlite = openDb(path.join(sqliteDir, "ferry.db"));
});

afterAll(async () => {
  sqlite?.$client.close();
  if (sqliteDir) fs.rmSync(sqliteDir, { recursive: true, force: true });
  await pg?.close();
});

const pgTables = (Object.values(pgSchema) as unknown[]).filter((v): v is PgTable => isTable(v)).map((t) => getTableConfig(t));

/** An expression or condition as PostgreSQL prints it back (no table prefix, no quotes on plain names). */
function asPrinted(sql: SQL): string {
  return new PgDialect()
    .sqlToQuery(sql)
    .sql.replace(/"[a-z_]+"\."([a-z_]+)"/g, "$1")
    .replace(/"([a-z_]+)"/g, "$1");
}

describe("the PostgreSQL migrations", () => {
  it("create exactly the tables and columns of db/schema.pg.ts, with their types, nullability and database defaults", async () => {
    const { rows } = await pg.pool.query<{ table: string; column: string; type: string; not_null: boolean; has_default: boolean }>(`
      SELECT c.table_name AS table, c.column_name AS column,
             format_type(a.atttypid, a.atttypmod) AS type,
             c.is_nullable = 'NO' AS not_null,
             (c.column_default IS NOT NULL OR c.is_identity = 'YES') AS has_default
      FROM information_schema.columns c
      JOIN pg_attribute a ON a.attrelid = format('%I.%I', c.table_schema, c.table_name)::regclass AND a.attname = c.column_name
      WHERE c.table_schema = 'public' AND c.table_name <> '__drizzle_migrations'
      ORDER BY c.table_name, c.column_name`);
    const expected = pgTables
      .flatMap((t) =>
        t.columns.map((c) => ({
          table: t.name,
          column: c.name,
          type: c.getSQLType().replace(" (", "("),
          not_null: c.notNull,
          has_default: c.default !== undefined || Boolean(c.generatedIdentity),
        })),
      )
      .sort((a, b) => a.table.localeCompare(b.table) || a.column.localeCompare(b.column));
    expect(rows).toEqual(expected);
  });

  it("create every index as declared: its columns or expression, unique or not, and its condition", async () => {
    // PostgreSQL quotes the names that are also keywords ("position"); compared without quotes.
    const { rows } = await pg.pool.query<{ indexname: string; indexdef: string }>(`
      SELECT indexname, replace(indexdef, '"', '') AS indexdef FROM pg_indexes i
      WHERE schemaname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)
      ORDER BY indexname`);
    const expected = pgTables
      .flatMap((t) =>
        t.indexes.map((index) => {
          const parts = (index.config.columns as unknown[]).map((p) => (is(p, SQL) ? asPrinted(p) : (p as { name: string }).name));
          const where = index.config.where ? ` WHERE (${asPrinted(index.config.where)})` : "";
          return {
            indexname: index.config.name as string,
            indexdef: `CREATE ${index.config.unique ? "UNIQUE " : ""}INDEX ${index.config.name} ON public.${t.name} USING btree (${parts.join(", ")})${where}`,
          };
        }),
      )
      .sort((a, b) => a.indexname.localeCompare(b.indexname));
    expect(rows).toEqual(expected);
    // The two that are not plain columns.
    expect(rows.map((r) => r.indexdef)).toEqual(
      expect.arrayContaining([
        "CREATE UNIQUE INDEX organizations_name_unique ON public.organizations USING btree (lower(name))",
        "CREATE UNIQUE INDEX service_targets_built_in_unique ON public.service_targets USING btree (built_in) WHERE (built_in = true)",
      ]),
    );
  });

  it("create every primary key, unique constraint, foreign key (with its ON DELETE) and check as declared", async () => {
    const { rows } = await pg.pool.query<{ table: string; def: string }>(`
      SELECT conrelid::regclass::text AS table, replace(pg_get_constraintdef(oid), '"', '') AS def
      FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND contype IN ('p', 'u', 'f', 'c')
      ORDER BY 1, 2`);
    const expected = pgTables
      .flatMap((t) => [
        ...t.columns.filter((c) => c.primary).map((c) => `PRIMARY KEY (${c.name})`),
        ...t.primaryKeys.map((pk) => `PRIMARY KEY (${pk.columns.map((c) => c.name).join(", ")})`),
        ...t.uniqueConstraints.map((u) => `UNIQUE (${u.columns.map((c) => c.name).join(", ")})`),
        ...t.checks.map((c) => `CHECK ((${asPrinted(c.value)}))`),
        ...t.foreignKeys.map((fk) => {
          const ref = fk.reference();
          const onDelete = fk.onDelete && fk.onDelete !== "no action" ? ` ON DELETE ${fk.onDelete.toUpperCase()}` : "";
          return `FOREIGN KEY (${ref.columns.map((c) => c.name).join(", ")}) REFERENCES ${getTableConfig(ref.foreignTable).name}(${ref.foreignColumns.map((c) => c.name).join(", ")})${onDelete}`;
        }),
      ].map((def) => ({ table: t.name, def })))
      .sort((a, b) => a.table.localeCompare(b.table) || (a.def < b.def ? -1 : a.def > b.def ? 1 : 0));
    expect(rows).toEqual(expected);
  });

  it("enforce the case-insensitive organisation name and the single built-in sandbox", async () => {
    await pg.db.insert(pgSchema.organizations).values({ name: "Acme Lending" });
    await expect(pg.db.insert(pgSchema.organizations).values({ name: "ACME lending" })).rejects.toThrow();
    const target = { name: "t", baseUrl: "http://127.0.0.1:4010", apiKeyCipher: "v1.k.iv.ct.tag", kind: "sandbox" as const };
    await pg.db.insert(pgSchema.serviceTargets).values([{ ...target, builtIn: true }, { ...target, builtIn: false }, { ...target, builtIn: false }]);
    await expect(pg.db.insert(pgSchema.serviceTargets).values({ ...target, builtIn: true })).rejects.toThrow();
  });
});

describe("rows on PostgreSQL and on SQLite", () => {
  // A database of its own: the constraint test above leaves rows behind.
  let own: PgTestDb;
  beforeAll(async () => {
    own = await createPgTestDb();
  });
  afterAll(async () => {
    await own?.close();
  });

  const at = new Date("2026-11-25T09:30:15.123Z");
  const later = new Date("2026-11-26T18:00:00.456Z");

  /** The same rows, written through each dialect's schema; defaults left to each database. */
  const rows = {
    organization: { id: "org-acme", name: "Acme Lending", createdAt: at },
    user: { id: "user-sam", email: "sam@acme.test", name: "Sam", role: "customer" as const, organizationId: "org-acme", lastSignInAt: later, createdAt: at },
    target: { id: "target-1", name: "Sandbox", baseUrl: "http://127.0.0.1:4010", apiKeyCipher: "v1.k.iv.ct.tag", kind: "sandbox" as const, builtIn: true, createdAt: at },
    engagement: { id: "eng-1", reference: "FER-1042", organizationId: "org-acme", platformKey: "xero", ownerId: "user-sam", serviceTargetId: "target-1", windowStartsAt: at, createdAt: at, updatedAt: later },
    step: { engagementId: "eng-1", step: 3, state: "done" as const, completedById: "user-sam", completedAt: later, evidence: { kind: "callback_confirmed" as const, callbackUrl: "https://app.acme.test/callback", note: "Checked with Sam" }, updatedAt: later },
    submission: {
      id: "sub-1",
      engagementId: "eng-1",
      status: "submitted" as const,
      clientId: "client-1",
      clientSecretMask: "••••cdef",
      contacts: [{ name: "Sam", email: "sam@acme.test" }],
      fileName: "tokens.csv",
      fileKind: "csv" as const,
      rowCount: 2,
      warningCount: 0,
      countsByKind: { missing_expiry: 0 },
      preview: [{ companyName: "Bluebird Repairs", accessToken: "••••9f2a" }],
      submittedAt: at,
    },
    throttle: { key: "email:sam@acme.test", failures: 2, windowStartedAt: at },
    call: { runId: "run-1", at, operation: "createCompany", method: "POST", path: "/companies", status: 200, ok: true, durationMs: 41, detail: { companyId: "c-1", nested: { list: [1, 2.5, "x", null, true] } } },
    audit: { at, actorLabel: "Sam (customer)", action: "intake.submitted", targetType: "submission", targetId: "sub-1", before: null, after: { rowCount: 2 } },
  };

  it("read back with the same values and the same JavaScript types (Date, boolean, JSON, numbers)", async () => {
    const p = own.db;
    await p.insert(pgSchema.organizations).values(rows.organization);
    await p.insert(pgSchema.users).values(rows.user);
    await p.insert(pgSchema.serviceTargets).values(rows.target);
    await p.insert(pgSchema.engagements).values(rows.engagement);
    await p.insert(pgSchema.engagementSteps).values(rows.step);
    await p.insert(pgSchema.intakeSubmissions).values(rows.submission);
    await p.insert(pgSchema.signInThrottle).values(rows.throttle);
    await p.insert(pgSchema.serviceCalls).values([rows.call, { ...rows.call, ok: false, status: 429, detail: null }]);
    await p.insert(pgSchema.auditEvents).values(rows.audit);

    const s = sqlite;
    s.insert(sqliteSchema.organizations).values(rows.organization).run();
    s.insert(sqliteSchema.users).values(rows.user).run();
    s.insert(sqliteSchema.serviceTargets).values(rows.target).run();
    s.insert(sqliteSchema.engagements).values(rows.engagement).run();
    s.insert(sqliteSchema.engagementSteps).values(rows.step).run();
    s.insert(sqliteSchema.intakeSubmissions).values(rows.submission).run();
    s.insert(sqliteSchema.signInThrottle).values(rows.throttle).run();
    s.insert(sqliteSchema.serviceCalls).values([rows.call, { ...rows.call, ok: false, status: 429, detail: null }]).run();
    s.insert(sqliteSchema.auditEvents).values(rows.audit).run();

    const fromPg = {
      organizations: await p.select().from(pgSchema.organizations).where(eq(pgSchema.organizations.id, "org-acme")),
      users: await p.select().from(pgSchema.users),
      targets: await p.select().from(pgSchema.serviceTargets).where(eq(pgSchema.serviceTargets.id, "target-1")),
      engagements: await p.select().from(pgSchema.engagements),
      steps: await p.select().from(pgSchema.engagementSteps),
      submissions: await p.select().from(pgSchema.intakeSubmissions),
      throttle: await p.select().from(pgSchema.signInThrottle),
      calls: await p.select().from(pgSchema.serviceCalls).orderBy(asc(pgSchema.serviceCalls.id)),
      audit: await p.select().from(pgSchema.auditEvents),
    };
    const fromSqlite = {
      organizations: s.select().from(sqliteSchema.organizations).where(eq(sqliteSchema.organizations.id, "org-acme")).all(),
      users: s.select().from(sqliteSchema.users).all(),
      targets: s.select().from(sqliteSchema.serviceTargets).where(eq(sqliteSchema.serviceTargets.id, "target-1")).all(),
      engagements: s.select().from(sqliteSchema.engagements).all(),
      steps: s.select().from(sqliteSchema.engagementSteps).all(),
      submissions: s.select().from(sqliteSchema.intakeSubmissions).all(),
      throttle: s.select().from(sqliteSchema.signInThrottle).all(),
      calls: s.select().from(sqliteSchema.serviceCalls).orderBy(asc(sqliteSchema.serviceCalls.id)).all(),
      audit: s.select().from(sqliteSchema.auditEvents).all(),
    };

    expect(fromPg).toEqual(fromSqlite);
    // toEqual compares Dates by value; the types themselves must match too.
    expect(typeShape(fromPg)).toEqual(typeShape(fromSqlite));

    // What each database filled in itself reads the same way on both.
    const [user] = fromPg.users;
    expect(user?.active).toBe(true);
    expect(user?.sessionVersion).toBe(0);
    expect(fromPg.throttle[0]?.expiresAt).toEqual(new Date(0));
    expect(fromPg.submissions[0]?.warnings).toEqual([]);
    expect(fromPg.calls.map((c) => [c.id, c.ok, c.attempts])).toEqual([
      [1, true, 1],
      [2, false, 1],
    ]);
    expect(fromPg.engagements[0]?.windowStartsAt).toEqual(at);
    expect(fromPg.steps[0]?.completedAt?.getTime()).toBe(later.getTime());
  });
});

/** Each value's type, recursively (Date, null, array, object, or typeof), to compare beside the values. */
function typeShape(value: unknown): unknown {
  if (value === null) return "null";
  if (value instanceof Date) return "Date";
  if (Array.isArray(value)) return value.map(typeShape);
  if (typeof value === "object") return Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, typeShape(v)]));
  return typeof value;
}

describe("npm run db:migrate with DATABASE_URL", () => {
  const journal = JSON.parse(fs.readFileSync(path.join(process.cwd(), "db", "migrations-pg", "meta", "_journal.json"), "utf8")) as { entries: unknown[] };

  function migrateCommand(url: string): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn("npm", ["run", "--silent", "db:migrate"], { cwd: process.cwd(), env: { ...process.env, DATABASE_URL: url, DATABASE_FILE: "" }, stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, output }));
    });
  }

  it("migrates an empty database, from two processes at once and again afterwards, applying each migration once", async () => {
    const { url, drop } = await createEmptyPgDatabase();
    const pool = new Pool({ connectionString: url, max: 1 });
    try {
      const together = await Promise.all([migrateCommand(url), migrateCommand(url)]);
      const again = await migrateCommand(url);
      for (const run of [...together, again]) {
        expect(run.output.trim()).toBe(`Database ready: ${url}`);
        expect(run.code).toBe(0);
      }
      const applied = await pool.query("SELECT hash FROM drizzle.__drizzle_migrations");
      expect(applied.rowCount).toBe(journal.entries.length);
      const tables = await pool.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1");
      expect(tables.rows.map((r) => r.table_name)).toEqual(pgTables.map((t) => t.name).sort());
    } finally {
      await pool.end();
      await drop();
    }
  });

  it("says which database it could not reach, without its password, and exits non-zero", async () => {
    const run = await migrateCommand("postgres://ferry:s3cret-pw@127.0.0.1:1/ferry");
    expect(run.code).not.toBe(0);
    expect(run.output).toContain("Migrating the database failed: postgres://ferry:***@127.0.0.1:1/ferry");
    expect(run.output).not.toContain("s3cret-pw");
  });
});
