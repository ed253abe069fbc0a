/**
 * Service targets, the outbox, migration items and the reconciliation on a real PostgreSQL server
 * (runs when DATABASE_URL is a postgres:// URL; the file's own database is created there and
 * migrated with the committed PostgreSQL migrations). Parallel changes really are parallel here:
 * each transaction runs on its own connection.
 */
import { Client } from "pg";
import { and, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres, postgresUrl, type Database } from "@/db/database";
import { auditEvents, engagements, intakeSubmissions, migrationItems, serviceTargets } from "@/db/schema";
import { invite } from "@/server/accounts/invitations";
import { credentialsFor } from "@/server/demo/stand-in-credentials";
import { insertMigrationItems } from "@/server/items/insert-items";
import { openItemCredentials } from "@/server/items/item-credentials";
import { listOutbox, revealOutboxMessage } from "@/server/mail/outbox";
import { reconcile } from "@/server/migration/reconciliation";
import { getManagedPlatform } from "@/server/platforms";
import { seedPeople, TEST_KEY_RING, type People } from "@/server/testing/test-db";
import {
  archiveServiceTarget,
  assignTargetOrganization,
  createServiceTarget,
  ensureBuiltInSandbox,
  listServiceTargets,
  listTargetChoices,
  renameServiceTarget,
  replaceTargetApiKey,
  revealTargetApiKey,
  setTargetLimits,
} from "./targets";

const base = postgresUrl();
let database: Database;
let otherUrl: string;
let p: People;
beforeAll(async () => {
  if (!base) return;
  const name = `targets_${process.pid}_${Date.now()}`;
  const admin = new Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = base.replace(/\/[^/]*$/, `/${name}`);
  const c = new Client({ connectionString: url });
  await c.connect();
  await migrate(drizzle(c), { migrationsFolder: "db/migrations-pg" });
  await c.end();
  database = openPostgres(url, { max: 20 });
  otherUrl = url;
  p = await seedPeople(database.db);
});
afterAll(async () => database?.close());

const audited = async (action: string, targetId: string) =>
  database.db.select().from(auditEvents).where(and(eq(auditEvents.action, action), eq(auditEvents.targetId, targetId)));

async function engagementOn(serviceTargetId: string | null, reference: string) {
  const [eng] = await database.db.insert(engagements).values({ reference, organizationId: p.orgA, platformKey: "qhyg", ownerId: p.support.id, serviceTargetId }).returning();
  return eng!;
}

describe.runIf(base)("service targets on PostgreSQL", () => {
  it("are created, listed masked, renamed, assigned and their key replaced and decrypted, each audited", async () => {
    const { id } = await createServiceTarget(database, TEST_KEY_RING, p.admin, { name: "Production", baseUrl: "https://api.example.test", apiKey: "live-key-abcdef123456", kind: "service" });
    await renameServiceTarget(database, p.admin, { targetId: id, name: "Production — Org A" });
    await assignTargetOrganization(database, p.admin, { targetId: id, organizationId: p.orgA });
    await expect(assignTargetOrganization(database, p.admin, { targetId: id, organizationId: p.orgB })).rejects.toThrow("already belongs to Org A");
    expect(await replaceTargetApiKey(database, TEST_KEY_RING, p.admin, { targetId: id, apiKey: "live-key-NEW-99998888" })).toEqual({ apiKeyMasked: "••••8888" });
    expect(await revealTargetApiKey(database, TEST_KEY_RING, null, { targetId: id, purpose: "check" })).toBe("live-key-NEW-99998888");
    const listed = (await listServiceTargets(database)).find((t) => t.id === id);
    expect(listed).toMatchObject({ name: "Production — Org A", organization: { id: p.orgA, name: "Org A" }, apiKeyMasked: "••••8888" });
    const eng = await engagementOn(id, "FER-PG-1");
    expect((await listTargetChoices(database, eng)).current).toMatchObject({ id, problem: null });
    for (const action of ["service_target.created", "service_target.renamed", "service_target.organization_assigned", "service_target.key_replaced", "secret.decrypted"]) {
      expect(await audited(action, id)).toHaveLength(1);
    }
    expect(JSON.stringify(await database.db.select().from(serviceTargets))).not.toContain("live-key");
  });

  it("changes a target's limits once when four admins set the same limits at once (the row is locked while checked)", async () => {
    const { id } = await createServiceTarget(database, TEST_KEY_RING, p.admin, { name: "Limits", baseUrl: "https://api.example.test", apiKey: "limits-key-1234", kind: "service", organizationId: p.orgA });
    await Promise.all([1, 2, 3, 4].map(() => setTargetLimits(database, p.admin, { targetId: id, requestsPerMinute: 120, dailyQuota: 5000 })));
    expect(await audited("service_target.limits_changed", id)).toHaveLength(1);
  });

  it("refuses to archive a target an unfinished engagement points at, and archives it once, whoever else tries at once", async () => {
    const { id } = await createServiceTarget(database, TEST_KEY_RING, p.admin, { name: "In use", baseUrl: "https://api.example.test", apiKey: "in-use-key-1234", kind: "service", organizationId: p.orgA });
    const eng = await engagementOn(id, "FER-PG-2");
    await expect(archiveServiceTarget(database, p.admin, { targetId: id })).rejects.toThrow("FER-PG-2, Org A");
    await database.db.update(engagements).set({ status: "completed" }).where(eq(engagements.id, eng.id));
    const tries = await Promise.allSettled([1, 2, 3].map(() => archiveServiceTarget(database, p.admin, { targetId: id })));
    expect(tries.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(tries.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason.message)).toEqual(Array(2).fill("In use is already archived."));
    expect(await audited("service_target.archived", id)).toHaveLength(1);
  });

  it("waits for an engagement being pointed at the target, then refuses to archive it", async () => {
    const { id } = await createServiceTarget(database, TEST_KEY_RING, p.admin, { name: "Being chosen", baseUrl: "https://api.example.test", apiKey: "chosen-key-1234", kind: "service", organizationId: p.orgA });
    const eng = await engagementOn(null, "FER-PG-4");
    // Staff point the engagement at the target in a transaction that has not committed yet.
    const other = new Client({ connectionString: otherUrl });
    await other.connect();
    try {
      await other.query("begin");
      await other.query("update engagements set service_target_id = $1 where id = $2", [id, eng.id]);
      const archiving = archiveServiceTarget(database, p.admin, { targetId: id }).then(
        () => "archived",
        (e: Error) => e.message,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await other.query("commit");
      expect(await archiving).toContain("FER-PG-4, Org A");
    } finally {
      await other.end();
    }
    expect(await audited("service_target.archived", id)).toEqual([]);
  });

  it("registers one built-in sandbox when four replicas start at once", async () => {
    const answers = await Promise.all([1, 2, 3, 4].map((n) => ensureBuiltInSandbox(database, TEST_KEY_RING, { url: "http://127.0.0.1:4010", newApiKey: async () => `sandbox-key-${n}0000` })));
    const builtIn = await database.db.select().from(serviceTargets).where(eq(serviceTargets.builtIn, true));
    expect(builtIn).toHaveLength(1);
    expect(new Set(answers.map((a) => a!.id))).toEqual(new Set([builtIn[0]!.id]));
    expect(answers.filter((a) => a!.how === "created")).toHaveLength(1);
  });
});

describe.runIf(base)("migration items and the reconciliation on PostgreSQL", () => {
  it("stores 1,201 items sealed for their rows, and counts them from their stored JSON checks", async () => {
    const qbo = getManagedPlatform("qhyg")!;
    const eng = await engagementOn(null, "FER-PG-3");
    const [submission] = await database.db
      .insert(intakeSubmissions)
      .values({ engagementId: eng.id, status: "submitted", clientId: "c", clientSecretMask: "••••", contacts: [], fileName: "f.csv", fileKind: "csv", rowCount: 1201, warningCount: 0, countsByKind: {}, preview: [], submittedAt: new Date() })
      .returning();
    const rows = Array.from({ length: 1201 }, (_, i) => ({ line: i + 2, name: `Company ${i}`, externalRef: null, records: null, credentials: credentialsFor(qbo, i) }));
    const n = await database.transaction((tx) => insertMigrationItems(tx, { ring: TEST_KEY_RING, platform: qbo, engagementId: eng.id, submissionId: submission!.id, rows, at: new Date() }), {
      isolation: "read committed",
    });
    expect(n).toBe(1201);
    const items = await database.db.select().from(migrationItems).where(eq(migrationItems.engagementId, eng.id)).orderBy(migrationItems.position);
    expect(items.map((i) => i.name)).toEqual(rows.map((r) => r.name));
    expect(items[3]!.accessTokenExpiresAt).toEqual(new Date("2030-01-01T00:00:00Z"));
    expect(openItemCredentials(TEST_KEY_RING, { engagementId: eng.id, itemId: items[3]!.id }, items[3]!.credentialsCipher!)).toEqual(rows[3]!.credentials);

    const set = (i: number, values: Partial<typeof migrationItems.$inferInsert>) => database.db.update(migrationItems).set(values).where(eq(migrationItems.id, items[i]!.id));
    await set(0, { state: "verified", companyId: "c0" });
    await set(1, { state: "failed", companyId: "c1", checks: { connection: { status: "Linked" } } });
    await set(2, { state: "failed", companyId: "c2", checks: { connection: { status: "Linked" }, sync: { finishedAt: "2026-01-01T00:00:00Z" } }, lastError: { operation: "createConnection" } });
    await set(3, { state: "failed", companyId: "c3", checks: { connection: { status: "Linked" }, sync: { finishedAt: "2026-01-01T00:00:00Z" } }, lastError: { operation: "getDataStatus" } });
    await set(4, { state: "set_aside", checks: { connection: { status: "PendingAuth" } } });
    const counted = await database.transaction((tx) => reconcile(tx, eng.id), { isolation: "read committed" });
    expect(counted).toMatchObject({ supplied: 1201, created: 4, linked: 4, synced: 2, verified: 1, failed: 3, setAside: 1, inProgress: 1196, pilot: null });
  });
});

describe.runIf(base)("the outbox on PostgreSQL", () => {
  it("lists an invitation's message with its link hidden, and reveals it to an admin, audited", async () => {
    const mail = { from: "f@test", log: () => {}, keyRing: TEST_KEY_RING };
    const { id: invitationId } = await invite({ database, mail, appUrl: "http://ferry.test" }, p.admin, { email: "pg-new@org-a.test", name: "New", role: "customer", organizationId: p.orgA });
    const message = (await listOutbox(database, { limit: 50 })).find((m) => m.to === "pg-new@org-a.test")!;
    expect(message).toMatchObject({ canRevealLink: true });
    expect(message.text).toContain("[one-time link hidden]");
    const { text } = await revealOutboxMessage(database, TEST_KEY_RING, p.admin, { id: message.id });
    expect(text).toContain("http://ferry.test/");
    expect((await audited("outbox.link_revealed", message.id))[0]).toMatchObject({ after: { invitation: invitationId, to: "pg-new@org-a.test" } });
  });
});
