/**
 * A reconnection that lands on another platform company (whoever was signed in to the platform in
 * the end customer's browser), against a real sandbox: the watch does not count it as reconnected,
 * says so in the company's reason, the timeline and a mail, and unlinks that connection so nothing
 * of the other company is read; the end customer then reconnects the migrated company through the
 * same link and it is verified.
 */
import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { auditEvents, mailOutbox, migrationItems } from "@/db/schema";
import { startBulkRun } from "@/server/migration/bulk/bulk-controls";
import { createMigrationWorker, type Worker } from "@/server/migration/migration-worker";
import { requestTestRun } from "@/server/migration/test-run/request-test-run";
import { callerAs, testConfig } from "@/server/testing/caller";
import { engineTestBed } from "@/server/testing/test-bed";
import { TEST_KEY_RING } from "@/server/testing/test-db";
import { until } from "@/server/testing/until";
import { createServiceClient } from "@/server/service-client";
import { DEFAULT_PIPELINE_POLICY } from "../engine/pipeline";
import { reconnectLinkUrl } from "./reconnect-link";

const bed = engineTestBed();
const running: Worker[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((w) => w.stop()));
});
const notify = () => ({ appUrl: "http://ferry.test", mail: { from: "Ferry <ferry@test>", log: () => {}, keyRing: TEST_KEY_RING } });
const item = async (id: string) => (await bed.t.db.select().from(migrationItems).where(eq(migrationItems.id, id)).limit(1))[0]!;

describe("a reconnection to a different company", () => {
  it("is not counted, is told with what to do, and is unlinked; the right company through the same link is verified", async () => {
    const eng = await bed.ready([{ name: "Right Good", records: 1 }, { name: "Right Rotated", records: 1, rotatedAfterExport: true }], { organizationId: bed.people.orgA, customer: bed.people.customerA });
    const policy = { ...DEFAULT_PIPELINE_POLICY, pollInitialMs: 100, pollMaxMs: 500, retryBaseMs: 50, retryMaxMs: 200 };
    const worker = createMigrationWorker({ database: bed.t.database, ring: TEST_KEY_RING, leaseMs: 2_000, idleMs: 50, policy, watchEveryMs: 100, notify: notify(), sandbox: { url: bed.sb.url, adminToken: bed.sb.adminToken } });
    running.push(worker);
    await requestTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, kind: "pilot", itemId: eng.items[0]!.id });
    await worker.runOnce();
    await startBulkRun(bed.t.database, { notify: testConfig() }, bed.people.support, { engagementId: eng.engagementId, reason: "Wrong company test." });
    worker.start();
    const rotatedId = eng.items[1]!.id;
    const waiting = await until("the refused company waits", () => item(rotatedId), (i) => i.state === "reconnect_pending", 60_000);
    // The migrated company is the one the token file named (its tokens were refused, so the service never linked it).
    expect(waiting.platformTenant).toEqual({ realmId: expect.stringMatching(/^\d+$/) });

    // Its end customer reconnects while signed in to another QuickBooks company.
    const other = await bed.sb.control.link(waiting.companyId!, waiting.connectionId!, { otherTenant: true });
    expect(other.connection.connectionInfo).not.toEqual(waiting.platformTenant);
    const told = await until("the wrong company found", () => item(rotatedId), (i) => i.wrongTenant !== null, 30_000);
    expect(told.state).toBe("reconnect_pending");
    expect(told.wrongTenant).toEqual(other.connection.connectionInfo);
    expect(told.outcomeReason).toMatch(/^Reconnected to a different QuickBooks Online company \(realmId \d+; the migrated one is realmId \d+\).*Ask the end customer to open the same reconnect link again/);
    // Nothing of the other company is read: its connection is unlinked at the service.
    const service = createServiceClient({ baseUrl: bed.sb.url, apiKey: eng.apiKey });
    await until("the connection unlinked", async () => (await service.getConnection({ companyId: waiting.companyId!, connectionId: waiting.connectionId! })).data.status, (status) => status === "Unlinked", 30_000);
    const audits = await bed.t.db.select().from(auditEvents).where(and(eq(auditEvents.engagementId, eng.engagementId), eq(auditEvents.action, "migration_item.wrong_company")));
    expect(audits).toHaveLength(1);
    const timeline = await callerAs(bed.t.database, bed.people.customerA).bulk.timeline({ engagementId: eng.engagementId, itemId: rotatedId });
    expect(timeline.entries.map((e) => e.text)).toContainEqual(expect.stringMatching(/^Right Rotated was reconnected to a different company on the platform \(realmId \d+, not the migrated realmId \d+\)/));
    const wrongMails = await until("the mail", async () => (await bed.t.db.select().from(mailOutbox)).filter((m) => m.subject.includes("A company was reconnected to a different company")), (m) => m.length > 0, 15_000);
    expect(wrongMails.length).toBeGreaterThan(0);
    expect(wrongMails[0]!.text).toContain(`Reconnect link: ${reconnectLinkUrl({ appUrl: "http://ferry.test", ring: TEST_KEY_RING }, rotatedId)}`);

    // The end customer opens the same link again, signed in to the migrated company: verified.
    await bed.sb.control.link(waiting.companyId!, waiting.connectionId!);
    const back = await until("verified", () => item(rotatedId), (i) => i.state === "verified", 60_000);
    expect(back.wrongTenant).toBeNull();
    expect(back.reconnectedAt).not.toBeNull();
  });
});
