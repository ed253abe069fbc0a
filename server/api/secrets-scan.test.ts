/**
 * Submitted secrets never come back: a customer submits an OAuth client secret and a token file
 * through the upload route, and after a (recorded) bulk run a supplementary file of fresh tokens
 * through its route, the flows run, and then the answer of every procedure (as every role), the
 * upload routes' answers, every row of every table, the captured server log and (on SQLite) the
 * raw database file (after a WAL checkpoint) are scanned for the known secrets. None may be there
 * in plain text; masks show at most the last four characters.
 */
import { sqliteClientOf } from "@/db/database";
import { DEFAULT_CLOCK_TARGETS } from "@/core/engagements/clocks";
import fs from "node:fs";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { eq, getTableName, is, Table } from "drizzle-orm";
import * as schema from "@/db/schema";
import { databaseDialect } from "@/db/dialect";
import { auditEvents, mailOutbox, migrationItems, migrationRuns, supplementaryRows } from "@/db/schema";
import { createEngagement } from "@/server/engagements/create-engagement";
import { csvBytes, headerFor, rowFor, secretsIn } from "@/server/testing/token-files";
import { getManagedPlatform } from "@/server/platforms";
import type { Actor } from "@/core/accounts/actor";
import { createServiceTarget } from "@/server/targets/targets";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase, TEST_NOTIFY } from "@/server/testing/test-db";
import { handleSupplementaryFileRequest, handleTokenFileRequest } from "./intake-http";
import { appRouter } from "./root";
import { callerAs, testConfig } from "../testing/caller";
import { deliverDueMail } from "@/server/mail/sender";

const qbo = getManagedPlatform("qhyg")!;
const CLIENT_SECRET = "cs_live_KnownClientSecret_5f2c9a7e1b44";
const rows = [headerFor(qbo), ...[1, 2, 3].map((i) => rowFor(qbo, 100 + i))];
/** Service targets' API keys: one added with the target, one that replaces it, one added through the API. */
const TARGET_KEY = "tk_live_KnownTargetKey_8d1e6b0c3a77";
const REPLACED_KEY = "tk_live_ReplacementKey_2b9f4e1d6c05";
const CREATED_KEY = "tk_live_CreatedThroughApi_7a3c5e9b1f28";
/** Fresh tokens for the second company, sent in a supplementary file after the bulk run. */
const freshRows = [headerFor(qbo), rowFor(qbo, 900)].map((r, i) => (i === 1 ? r.map((v, j) => (j === 0 ? rows[2]![0]! : j === r.length - 2 ? rows[2]![j]! : v)) : r));
const SECRETS = [CLIENT_SECRET, TARGET_KEY, REPLACED_KEY, CREATED_KEY, ...secretsIn(qbo, rows.slice(1)), ...secretsIn(qbo, freshRows.slice(1))];

let t: TestDatabase;
let p: People;
let engagementId: string;
const logLines: string[] = [];
const responses: string[] = [];
const spies: { mockRestore(): void }[] = [];

/** Every procedure with an input that reaches past its access check on this engagement. */
function inputs(f: { engagementId: string; submissionId: string; windowId: string; targetId: string; fileId: string; itemId: string }): Record<string, unknown> {
  const e = { engagementId: f.engagementId };
  return {
    "me.get": undefined,
    "me.changePassword": { currentPassword: "not the password", newPassword: "a new long password" },
    "me.signOutEverywhere": undefined,
    "me.mailPreference": undefined,
    "me.setMailPreference": { preference: "every" },
    "platforms.list": undefined,
    "organizations.list": undefined,
    "organizations.create": { name: `Scan Org ${Math.random()}` },
    "organizations.clockTargets": { organizationId: p.orgA },
    "organizations.setClockTargets": { organizationId: p.orgA, targets: DEFAULT_CLOCK_TARGETS },
    "users.list": undefined,
    "users.staff": undefined,
    "users.setActive": { userId: p.support2.id, active: true },
    "users.signOutEverywhere": { userId: p.support2.id },
    "invitations.list": undefined,
    "invitations.create": { email: `scan${Math.floor(Math.random() * 1e9)}@org-a.test`, name: "Scan", role: "customer", organizationId: p.orgA },
    "invitations.revoke": { invitationId: "none" },
    "invitations.revealLink": { invitationId: "none" },
    "invitations.lookup": { token: "unknown-token" },
    "invitations.accept": { token: "unknown-token-123", name: "X", password: "long enough password" },
    "outbox.list": { limit: 200 },
    "outbox.search": { page: 1, pageSize: 100 },
    "outbox.revealLink": { id: "none" },
    "targets.list": undefined,
    "targets.create": { name: "Scan target", baseUrl: "https://api.example.test", apiKey: CREATED_KEY, organizationId: p.orgA },
    "targets.rename": { targetId: f.targetId, name: "Scan target renamed" },
    "targets.setLimits": { targetId: f.targetId, requestsPerMinute: 500, dailyQuota: 20_000 },
    "targets.replaceKey": { targetId: f.targetId, apiKey: REPLACED_KEY },
    "targets.archive": { targetId: "none" },
    "targets.assignOrganization": { targetId: "none", organizationId: p.orgA },
    "targets.testConnection": { targetId: f.targetId },
    "targets.choices": e,
    "targets.assign": { ...e, serviceTargetId: f.targetId },
    "engagements.list": { page: 1, pageSize: 50 },
    "engagements.get": e,
    "engagements.timeline": e,
    "engagements.create": { organizationId: p.orgB, platformKey: "rwuv" },
    "engagements.step": { ...e, step: 5, action: "start" },
    "engagements.setStatus": { ...e, status: "active" },
    "engagements.setOwner": { ...e, ownerId: p.support.id },
    "intake.get": e,
    "intake.items": { ...e, page: 1, pageSize: 100 },
    "intake.accept": { ...e, submissionId: f.submissionId },
    "intake.return": { ...e, submissionId: f.submissionId, note: "Scan" },
    "windows.plan": e,
    "windows.propose": { ...e, windows: [{ startsAt: new Date(Date.now() + 86_400_000), endsAt: new Date(Date.now() + 2 * 86_400_000) }] },
    "windows.checkOverlaps": { ...e, windows: [{ startsAt: new Date(Date.now() + 86_400_000), endsAt: new Date(Date.now() + 2 * 86_400_000) }] },
    "windows.withdraw": { ...e, windowId: f.windowId },
    "windows.accept": { ...e, windowId: f.windowId },
    "windows.reschedule": { ...e, reason: "Scan" },
    "windows.decline": { ...e, reason: "Scan", suggested: [] },
    "requests.list": undefined,
    "requests.create": { platformKey: "fztf", companies: 3, preferredFrom: new Date(Date.now() + 3 * 86_400_000), preferredTo: null, note: "Scan" },
    "requests.accept": { requestId: "none" },
    "requests.decline": { requestId: "none", reason: "Scan" },
    "confirmations.get": e,
    "confirmations.callbackUrl": { ...e, note: "Scan" },
    "confirmations.syncingDisabled": { ...e, note: "Scan" },
    "confirmations.callbackCheck": e,
    "confirmations.startCallbackCheck": e,
    "confirmations.refreshCallbackCheck": e,
    "confirmations.cancelCallbackCheck": e,
    "tests.items": { ...e, search: "" },
    "tests.start": { ...e, kind: "rehearsal", itemId: null },
    "tests.list": e,
    "tests.controls": e,
    "tests.get": { ...e, runId: "none" },
    "tests.cancel": { ...e, runId: "none", reason: "Scan" },
    "handover.get": e,
    "handover.items": { ...e, page: 1, pageSize: 25 },
    "handover.confirm": e,
    "handover.acknowledge": e,
    "handover.acknowledgeOnBehalf": { ...e, note: "Scan" },
    "lastMile.get": e,
    "lastMile.setHypercareDays": { ...e, days: 5 },
    "lastMile.checkNow": e,
    "lastMile.markDropsSeen": e,
    "portfolio.get": {},
    "portfolio.workload": undefined,
    "calendar.get": { view: "month", scope: "everyone", day: new Date().toISOString().slice(0, 10) },
    "calendar.feed": undefined,
    "calendar.resetFeed": undefined,
    "bulk.overview": e,
    "bulk.items": { ...e, page: 1, pageSize: 100 },
    "bulk.timeline": { ...e, itemId: f.itemId },
    "bulk.start": e,
    "bulk.pause": { ...e, reason: "Scan" },
    "bulk.resume": e,
    "bulk.cancel": { ...e, reason: "Scan" },
    "bulk.retryFailed": e,
    "bulk.setAside": { ...e, itemId: "none", reason: "Scan" },
    "bulk.retryItem": { ...e, itemId: "none" },
    "supplementary.get": e,
    "supplementary.accept": { ...e, fileId: f.fileId },
    "supplementary.sendBack": { ...e, fileId: f.fileId, note: "Scan" },
  };
}

async function callEverything(actor: Actor, f: Parameters<typeof inputs>[0]) {
  const caller = callerAs(t.database, actor, testConfig(logLines)) as unknown as Record<string, Record<string, (i: unknown) => Promise<unknown>>>;
  const table = inputs(f);
  expect(Object.keys(table).sort()).toEqual(Object.keys(appRouter._def.procedures).sort());
  for (const [path, input] of Object.entries(table)) {
    const [ns, name] = path.split(".") as [string, string];
    const outcome = await caller[ns]![name]!(input).then(
      (value) => superjson.stringify(value),
      (error: unknown) => JSON.stringify({ message: error instanceof Error ? error.message : String(error), cause: (error as { cause?: unknown }).cause ?? null }),
    );
    responses.push(`${actor.role} ${path}: ${outcome}`);
  }
}

beforeAll(async () => {
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    spies.push(vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void logLines.push(args.map(String).join(" "))));
  }
  t = await createTestDatabase();
  p = await seedPeople(t.database);
  engagementId = (await createEngagement(t.database, TEST_NOTIFY, p.support, { organizationId: p.orgA, platformKey: "qhyg" })).id;

  const deps = { appOrigin: "http://ferry.test", createContext: async () => ({ database: t.database, actor: p.customerA, clientAddress: "127.0.0.1", config: testConfig(logLines) }) };
  const post = async (mode: "check" | "submit", bytes: Uint8Array, secret = CLIENT_SECRET) => {
    const body = new FormData();
    body.set("file", new File([Buffer.from(bytes)], "tokens.csv"));
    body.set("clientId", "client-id-1");
    body.set("clientSecret", secret);
    body.set("contacts", JSON.stringify([{ name: "Carol", email: "carol@org-a.test" }]));
    const res = await handleTokenFileRequest(new Request(`http://ferry.test/api/engagements/${engagementId}/token-file`, { method: "POST", body }), { engagementId, mode }, deps);
    const text = await res.text();
    responses.push(`upload ${mode} ${res.status}: ${text}`);
    return JSON.parse(text) as { submissionId?: string };
  };
  // A check, a refused submission (a duplicate row) and a good one: each answer is scanned.
  await post("check", csvBytes(rows));
  await post("submit", csvBytes([...rows, rows[1]!]));
  const { submissionId } = await post("submit", csvBytes(rows));

  const support = callerAs(t.database, p.support, testConfig(logLines));
  await support.intake.accept({ engagementId, submissionId: submissionId! });
  const { windowIds } = await support.windows.propose({ engagementId, windows: [{ startsAt: new Date(Date.now() + 86_400_000), endsAt: new Date(Date.now() + 2 * 86_400_000) }] });
  await callerAs(t.database, p.customerA, testConfig(logLines)).windows.accept({ engagementId, windowId: windowIds[0]! });

  // A bulk run (recorded as the runner leaves it) in which the second company's tokens were refused;
  // the customer sends fresh ones: a check, a refused file (a company twice) and a good one.
  const runId = (await t.db.insert(migrationRuns).values({ engagementId, kind: "bulk", status: "completed", requestedAt: new Date(), outcome: {} }).returning())[0]!.id;
  await t.db.update(migrationItems).set({ runId, state: "verified", companyId: "c-1", connectionId: "k-1" }).where(eq(migrationItems.engagementId, engagementId));
  await t.db.update(migrationItems).set({ state: "reauth_required" }).where(eq(migrationItems.name, rows[2]![0]!));
  const postFresh = async (mode: "check" | "submit", bytes: Uint8Array) => {
    const body = new FormData();
    body.set("file", new File([Buffer.from(bytes)], "fresh.csv"));
    const res = await handleSupplementaryFileRequest(new Request(`http://ferry.test/api/engagements/${engagementId}/supplementary-file`, { method: "POST", body }), { engagementId, mode }, deps);
    const text = await res.text();
    responses.push(`supplementary ${mode} ${res.status}: ${text}`);
    return JSON.parse(text) as { fileId?: string };
  };
  await postFresh("check", csvBytes(freshRows));
  await postFresh("submit", csvBytes([...freshRows, freshRows[1]!]));
  const { fileId } = await postFresh("submit", csvBytes(freshRows));

  // The organisation's own target (nothing listens at its address: its connection test answers "unreachable").
  const targetId = (await createServiceTarget(t.database, TEST_KEY_RING, p.admin, { name: "Scan target", baseUrl: "http://127.0.0.1:9", apiKey: TARGET_KEY, kind: "service", organizationId: p.orgA })).id;
  // The company with fresh tokens: its timeline names the file they came in.
  const [refused] = await t.db.select({ id: migrationItems.id }).from(migrationItems).where(eq(migrationItems.name, rows[2]![0]!));
  const f = { engagementId, submissionId: submissionId!, windowId: windowIds[0]!, targetId, fileId: fileId!, itemId: refused!.id };
  for (const actor of [p.customerA, p.customerB, p.support, p.admin]) await callEverything(actor, f);
  // The worker's sender delivers what all that queued: its log lines are scanned too.
  await deliverDueMail({ database: t.database, mail: testConfig(logLines).mail });
});

afterAll(async () => {
  for (const spy of spies) spy.mockRestore();
  await t.close();
});

function expectNoSecret(where: string, text: string) {
  for (const secret of SECRETS) expect(text.includes(secret), `${where} holds the secret ending ${secret.slice(-4)}`).toBe(false);
}

describe("submitted secrets", () => {
  it("were really submitted and stored (encrypted)", async () => {
    expect(SECRETS.length).toBe(12);
    expect((await t.db.select().from(migrationItems)).filter((i) => i.credentialsCipher?.startsWith("v1.")).length).toBe(3);
    // The fresh tokens were accepted (support's call above): sealed for their company, and still held by their row.
    expect((await t.db.select().from(supplementaryRows)).map((r) => r.credentialsCipher?.startsWith("v1."))).toEqual([true]);
    expect((await t.db.select().from(migrationItems).where(eq(migrationItems.name, rows[2]![0]!)).limit(1))[0]!.supplementaryFileId).not.toBeNull();
    expect(responses.length).toBeGreaterThan(4 * 40);
  });

  it("appear in no response of any procedure, nor of the upload route", () => {
    for (const r of responses) expectNoSecret(r.slice(0, 60), r);
    // What is shown instead: the masks, at most the last four characters.
    expect(responses.some((r) => r.includes(`••••${CLIENT_SECRET.slice(-4)}`))).toBe(true);
  });

  it("appear nowhere in the audit table or the outbox", async () => {
    expectNoSecret("audit_events", JSON.stringify(await t.db.select().from(auditEvents)));
    expectNoSecret("mail_outbox", JSON.stringify(await t.db.select().from(mailOutbox)));
  });

  it("appear in no row of any table", async () => {
    const tables = Object.values(schema).filter((v): v is typeof auditEvents => is(v, Table));
    for (const table of tables) expectNoSecret(getTableName(table), JSON.stringify(await t.db.select().from(table)));
    // The scan can find things: a non-secret value of the file is there in plain text.
    expect(JSON.stringify(await t.db.select().from(migrationItems))).toContain(rows[1]![0]!);
  });

  it("appear in no server log line", () => {
    expect(logLines.some((l) => l.startsWith("[mail]"))).toBe(true);
    for (const line of logLines) expectNoSecret(`log line "${line.slice(0, 40)}"`, line);
  });

  // About SQLite's own file (free pages, the write-ahead log); on PostgreSQL the rows above are what can be read.
  it.skipIf(databaseDialect() !== "sqlite")("appear nowhere in the raw SQLite file after a WAL checkpoint", async () => {
    sqliteClientOf(t.database)!.pragma("wal_checkpoint(TRUNCATE)");
    for (const file of [t.file!, `${t.file!}-wal`]) {
      if (!fs.existsSync(file)) continue;
      const bytes = fs.readFileSync(file);
      for (const secret of SECRETS) expect(bytes.includes(Buffer.from(secret, "utf8")), `${file} holds the secret ending ${secret.slice(-4)}`).toBe(false);
    }
    // The scan can find things: a non-secret value of the file is there in plain text.
    expect(fs.readFileSync(t.file!).includes(Buffer.from(rows[1]![0]!, "utf8"))).toBe(true);
  });
});
