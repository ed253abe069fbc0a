/**
 * The supplementary file's HTTP routes through their real handler with real Request objects on a
 * real database (SQLite, or PostgreSQL in its pass): the token file route's protections (session, visibility with the same
 * 404 for another organisation, same origin, the body cap, a reference for unexpected errors), a
 * check that stores nothing, a refusal by line with nothing stored, a good file stored and support
 * mailed, and a hostile workbook refused as the first file's route refuses it.
 */
import { count, eq, sql, type SQL } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { auditEvents, mailOutbox, migrationRuns, supplementaryFiles, supplementaryRows } from "@/db/schema";
import type { Actor } from "@/core/accounts/actor";
import { HOSTILE_FILES } from "@/server/testing/hostile-files";
import { afterBulkRun, freshCredentials, freshTokenCsv, type AfterBulkRun, type FreshRow } from "@/server/testing/supplementary-fixture";
import { createTestDatabase, seedPeople, type People, type TestDatabase } from "@/server/testing/test-db";
import { handleSupplementaryFileRequest, TOKEN_FILE_BODY_LIMIT } from "./intake-http";
import { testConfig } from "../testing/caller";

const APP = "http://ferry.test";
let t: TestDatabase;
let p: People;
let f: AfterBulkRun;

beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
  f = await afterBulkRun(t.database, p);
});
afterEach(() => t.close());

const deps = (actor: Actor | null) => ({
  appOrigin: APP,
  createContext: async () => ({ database: t.database, actor, clientAddress: "127.0.0.1", config: testConfig() }),
});

function upload(file: { name: string; bytes: Uint8Array } | null, headers: Record<string, string> = {}) {
  const body = new FormData();
  if (file) body.set("file", new File([Buffer.from(file.bytes)], file.name));
  return { body, headers };
}

function post(mode: "check" | "submit", actor: Actor | null, parts: { body: BodyInit; headers?: Record<string, string> }, id = f.engagementId) {
  const url = `${APP}/api/engagements/${id}/supplementary-file${mode === "check" ? "/check" : ""}`;
  return handleSupplementaryFileRequest(new Request(url, { method: "POST", body: parts.body, headers: parts.headers }), { engagementId: id, mode }, deps(actor));
}

const COPPERLEAF: FreshRow = { name: "Copperleaf Cafe", externalRef: "CC-02", seed: 1 };
const good = (rows: FreshRow[] = [COPPERLEAF]) => ({ name: "fresh.csv", bytes: freshTokenCsv(rows) });

/** What a refused request must leave unchanged. */
async function stored() {
  const n = async (table: typeof supplementaryFiles | typeof supplementaryRows | typeof auditEvents | typeof mailOutbox) => (await t.db.select({ n: count() }).from(table))[0]!.n;
  return { files: await n(supplementaryFiles), rows: await n(supplementaryRows), audit: await n(auditEvents), mail: await n(mailOutbox) };
}

/** A statement no query builder makes (the same SQL on both databases; each driver's own call to run it). */
async function runStatement(statement: SQL): Promise<void> {
  if (t.dialect === "sqlite") (t.db as unknown as { run(query: SQL): unknown }).run(statement);
  else await (t.db as unknown as { execute(query: SQL): Promise<unknown> }).execute(statement);
}

describe("the supplementary file route's protections", () => {
  it("refuses a post from another site (403), a signed-out request (401), and staff sending (403); nothing stored", async () => {
    const before = await stored();
    expect((await post("submit", p.customerA, upload(good(), { origin: "http://evil.test" }))).status).toBe(403);
    expect((await post("submit", p.customerA, upload(good(), { "sec-fetch-site": "cross-site" }))).status).toBe(403);
    const anonymous = await post("submit", null, upload(good()));
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: "UNAUTHENTICATED", message: "Sign in to continue." } });
    const staff = await post("submit", p.support, upload(good()));
    expect(staff.status).toBe(403);
    expect(await staff.json()).toMatchObject({ error: { code: "FORBIDDEN", message: "Customers send fresh tokens in the portal." } });
    expect(await stored()).toEqual(before);
  });

  it("answers another organisation's engagement exactly like an unknown id, for a check and a submission", async () => {
    const before = await stored();
    for (const mode of ["check", "submit"] as const) {
      const unknown = await post(mode, p.customerB, upload(good()), "no-such-engagement");
      const other = await post(mode, p.customerB, upload(good()));
      expect([unknown.status, other.status]).toEqual([404, 404]);
      expect(await other.json()).toEqual(await unknown.json());
    }
    expect(await stored()).toEqual(before);
  });

  it("refuses a body over the cap before reading it, one that is not a form upload, and a form without a file", async () => {
    const declared = await post("submit", p.customerA, { body: "x", headers: { "content-type": "multipart/form-data; boundary=x", "content-length": String(TOKEN_FILE_BODY_LIMIT + 1) } });
    expect(declared.status).toBe(400);
    expect(await declared.json()).toMatchObject({ error: { message: expect.stringMatching(/larger than 20 MB/), fields: { file: expect.any(String) } } });
    const json = await post("check", p.customerA, { body: "{}", headers: { "content-type": "application/json" } });
    expect(await json.json()).toMatchObject({ error: { message: expect.stringContaining("form upload") } });
    const noFile = await post("check", p.customerA, upload(null));
    expect(await noFile.json()).toMatchObject({ error: { fields: { file: "Choose a token file to upload." } } });
  });

  it("says why before the bulk run has left companies waiting for tokens (409), storing nothing", async () => {
    await t.db.delete(migrationRuns).where(eq(migrationRuns.id, f.runId));
    const res = await post("check", p.customerA, upload(good()));
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: { code: "PRECONDITION_FAILED", message: expect.stringMatching(/once the bulk migration has run/) } });
  });

  it("answers an unexpected error with a reference only, never a stack, a message or the file", async () => {
    // The companies' table damaged by hand (a column renamed): the query fails, not the file.
    await runStatement(sql`alter table migration_items rename column last_error to last_error_gone`);
    const secret = freshCredentials(1).refreshToken!;
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const res = await post("check", p.customerA, upload(good()));
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ error: { code: "INTERNAL_SERVER_ERROR", message: expect.stringMatching(/^Something went wrong on our side \(reference [0-9a-f]{8}\)\.$/), fields: null } });
      for (const leak of [secret, "JSON", " at ", ".ts:"]) expect(text).not.toContain(leak);
      const ref = /reference ([0-9a-f]{8})/.exec(text)![1]!;
      const line = logged.mock.calls.map((args) => args.map(String).join(" ")).find((l) => l.includes(`ref=${ref}`));
      expect(line).toMatch(/\n\s+at /);
      expect(line).not.toContain(secret);
    } finally {
      logged.mockRestore();
    }
  });
});

describe("checking and sending a file", () => {
  it("answers a check with the companies it names and a masked preview, storing nothing", async () => {
    const before = await stored();
    const res = await post("check", p.customerA, upload(good([COPPERLEAF, { name: "Wildrose Wedding Co", seed: 2 }])));
    expect(res.status).toBe(200);
    const { check } = (await res.json()) as { check: { ok: boolean; matches: { name: string; matchedBy: string }[]; preview: { rows: unknown[] } } };
    expect(check.ok).toBe(true);
    expect(check.matches.map((m) => [m.name, m.matchedBy])).toEqual([
      ["Copperleaf Cafe", "externalRef"],
      ["Wildrose Wedding Co", "name"],
    ]);
    expect(check.preview.rows).toHaveLength(2);
    expect(await stored()).toEqual(before);
  });

  it("refuses a file with a company not in the engagement (422, by line), storing nothing", async () => {
    const before = await stored();
    const res = await post("submit", p.customerA, upload(good([COPPERLEAF, { name: "Nobody Ltd", seed: 2 }])));
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: { message: string }; check: { problems: { kind: string; line: number }[] } };
    expect(body.error.message).toBe("The file has problems to fix; nothing was stored.");
    expect(body.check.problems.map((x) => [x.kind, x.line])).toEqual([["company_not_in_engagement", 3]]);
    expect(await stored()).toEqual(before);
  });

  it("stores a good file, answers what it stored, and mails support", async () => {
    const res = await post("submit", p.customerA, upload(good()));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { fileId: string; companies: number; replacedCompanies: number };
    expect(body).toMatchObject({ companies: 1, replacedCompanies: 0 });
    expect((await t.db.select().from(supplementaryFiles).where(eq(supplementaryFiles.id, body.fileId)))[0]).toMatchObject({ status: "submitted", rowCount: 1 });
    const mail = await t.db.select().from(mailOutbox).where(eq(mailOutbox.subject, `[${f.reference}] Fresh tokens to review`));
    expect(mail.map((m) => m.to)).toEqual([p.support.email]);
    expect(mail[0]!.text).toContain(`${p.customerA.name} sent fresh tokens for 1 company that failed on its tokens (fresh.csv, 0 warnings).`);
  });

  it.each(HOSTILE_FILES.filter((h) => ["lying-sheet", "huge-cell", "csv-huge-cell"].includes(h.name)).map((h) => [h.name, h] as const))(
    "refuses the hostile file %s as the first file's route does, storing nothing",
    async (_, hostile) => {
      const before = await stored();
      const res = await post("submit", p.customerA, upload({ name: hostile.fileName, bytes: await hostile.build() }));
      expect(res.status).toBe(422);
      const body = (await res.json()) as { check: { ok: boolean; problems: { kind: string; message: string }[] } };
      expect(body.check.ok).toBe(false);
      expect(body.check.problems).toEqual([expect.objectContaining({ kind: hostile.expect.kind, message: expect.stringMatching(hostile.expect.message) })]);
      expect(await stored()).toEqual(before);
    },
    60_000,
  );
});
