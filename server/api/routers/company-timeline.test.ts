/**
 * One company's timeline through createCaller, after a real single-company test and bulk run
 * against a real sandbox: every call Ferry made for it in order with the service's answer (the
 * refused authorization's status, error and correlationId), polls folded, what support did to it,
 * the same for its customer, and nothing for anyone else.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookInbox } from "@/db/schema";
import { foldCalls } from "@/core/migration/company-timeline";
import { createOrganization } from "@/server/accounts/organizations";
import { startBulkRun } from "@/server/migration/bulk/bulk-controls";
import { createMigrationWorker } from "@/server/migration/migration-worker";
import { requestTestRun } from "@/server/migration/test-run/request-test-run";
import { engineTestBed } from "@/server/testing/test-bed";
import { TEST_KEY_RING } from "@/server/testing/test-db";
import { startEventsEndpoint, type EventsEndpoint } from "@/server/testing/events-endpoint";
import { until } from "@/server/testing/until";
import { callerAs, testConfig, trpcError } from "../../testing/caller";

const bed = engineTestBed();
let endpoint: EventsEndpoint;
beforeAll(async () => {
  endpoint = await startEventsEndpoint({ database: bed.t.database, ring: TEST_KEY_RING });
});
afterAll(async () => {
  await endpoint.close();
});

describe("a company's timeline", () => {
  it("holds every call made for the company with the service's answer, then what support did, oldest first; its customer reads the same, nobody else anything", async () => {
    const eng = await bed.ready([{ name: "Timeline Good", records: 2 }, { name: "Timeline Rotated", records: 2, rotatedAfterExport: true }], { organizationId: bed.people.orgA, customer: bed.people.customerA });
    const [good, rotated] = eng.items;
    // The bulk run registers Ferry's consumer at the sandbox, which posts its events to the endpoint.
    const worker = createMigrationWorker({ database: bed.t.database, ring: TEST_KEY_RING, watch: false, notify: null, bulk: { publicUrl: endpoint.baseUrl } });
    await requestTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, kind: "pilot", itemId: good!.id });
    await worker.runOnce();
    await startBulkRun(bed.t.database, { notify: testConfig() }, bed.people.support, { engagementId: eng.engagementId, reason: "Timeline test." });
    await worker.runOnce();

    const support = callerAs(bed.t.database, bed.people.support);
    const mine = await support.bulk.timeline({ engagementId: eng.engagementId, itemId: good!.id });
    expect(mine.name).toBe("Timeline Good");
    const calls = mine.entries.filter((e) => e.source === "call");
    expect(calls.map((e) => e.text)).toEqual(
      expect.arrayContaining([
        "Created the company on the service",
        "Created the data connection",
        "Gave the connection the company's tokens",
        "Asked the service to sync the company's data",
        "Read the sync's status",
        "Read the accounts back (a page of one, for their count)",
      ]),
    );
    expect(calls.every((e) => e.call!.ok && e.call!.correlationId)).toBe(true);
    for (const [a, b] of mine.entries.slice(1).map((e, i) => [mine.entries[i]!, e] as const)) expect(a.at.getTime()).toBeLessThanOrEqual(b.at.getTime());

    const theirs = await support.bulk.timeline({ engagementId: eng.engagementId, itemId: rotated!.id });
    // The platform refused the tokens: the authorization's answer says so in its words, with its correlationId.
    const refusal = theirs.entries.find((e) => e.source === "call" && e.call!.refused);
    expect(refusal).toMatchObject({ text: "Gave the connection the company's tokens", call: { method: "PUT", status: 200, correlationId: expect.any(String), answer: expect.stringMatching(/^Connection (Deauthorized|Unlinked): .+/) } });
    expect(theirs.entries.filter((e) => e.source === "call").at(-1)).toBe(refusal);
    // The service's connection.failed for the refusal arrives on its own time: once it is in, nothing more comes for this company.
    const rotatedCompanyId = (await support.bulk.items({ engagementId: eng.engagementId, page: 1, pageSize: 10 })).rows.find((r) => r.id === rotated!.id)!.companyId!;
    await until("the refusal's webhook", () => bed.t.db.select().from(webhookInbox).where(eq(webhookInbox.companyId, rotatedCompanyId)), (rows) => rows.some((r) => r.eventType === "connection.failed"), 20_000);
    // The company was handed to its end customer; support sets it aside from the timeline's own engagement.
    await support.bulk.setAside({ engagementId: eng.engagementId, itemId: rotated!.id, reason: "The end customer closed this company." });
    const after = await support.bulk.timeline({ engagementId: eng.engagementId, itemId: rotated!.id });
    expect(after.entries.at(-1)).toMatchObject({ source: "person", actor: expect.stringContaining("Support"), text: "Set Timeline Rotated aside: The end customer closed this company" });

    // The service's events about the company join its timeline as they arrive, with what became of each.
    const goodItem = (await support.bulk.items({ engagementId: eng.engagementId, page: 1, pageSize: 10 })).rows.find((r) => r.id === good!.id)!;
    await bed.sb.control.deauthorize(goodItem.companyId!, goodItem.connectionId!, { reason: "revoked" });
    await until("the drop's webhook", () => bed.t.db.select().from(webhookInbox).where(eq(webhookInbox.companyId, goodItem.companyId!)), (rows) => rows.some((r) => r.eventType === "connection.disconnected"), 20_000);
    const withEvent = await support.bulk.timeline({ engagementId: eng.engagementId, itemId: good!.id });
    expect(withEvent.entries.at(-1)).toMatchObject({
      source: "service",
      actor: null,
      text: expect.stringMatching(/^The service said the connection dropped \((Deauthorized|Unlinked)\) \[connection\.disconnected\]; Ferry has not acted on it yet$/),
    });

    // Its customer reads the same timeline; another organisation's customer, and a company of another engagement, nothing.
    expect(await callerAs(bed.t.database, bed.people.customerA).bulk.timeline({ engagementId: eng.engagementId, itemId: rotated!.id })).toEqual(after);
    expect((await trpcError(callerAs(bed.t.database, bed.people.customerB).bulk.timeline({ engagementId: eng.engagementId, itemId: rotated!.id }))).code).toBe("NOT_FOUND");
    const other = await bed.ready([{ name: "Elsewhere", records: 1 }], { organizationId: (await createOrganization(bed.t.database, bed.people.support, { name: "Elsewhere Org" })).id });
    const wrongPair = await trpcError(support.bulk.timeline({ engagementId: other.engagementId, itemId: rotated!.id }));
    expect([wrongPair.code, wrongPair.message]).toEqual(["NOT_FOUND", "No such company in this engagement's token file."]);
  });
});

describe("folding calls", () => {
  const call = (operation: string, s: number, status = 200, ok = true, correlationId = `c-${s}`) => ({
    at: new Date(Date.UTC(2026, 10, 29, 10, 0, s)),
    operation,
    method: "GET",
    path: `/x/${operation}`,
    status,
    ok,
    errorText: ok ? null : "Refused",
    correlationId,
    detail: operation === "getDataStatus" ? { counts: { Complete: 7 } } : null,
  });

  it("folds calls in a row with the same answer into one entry that counts and spans them; a different answer starts another", () => {
    const entries = foldCalls([call("refreshAllData", 0), call("getDataStatus", 1), call("getDataStatus", 11), call("getDataStatus", 21), call("getDataStatus", 31, 503, false), call("getDataStatus", 41), call("listInvoices", 42)]);
    expect(entries.map((e) => [e.text, e.call!.count, e.call!.status])).toEqual([
      ["Asked the service to sync the company's data", 1, 200],
      ["Read the sync's status (3 times)", 3, 200],
      ["Read the sync's status", 1, 503],
      ["Read the sync's status", 1, 200],
      ["Read the invoices back (a page of one, for their count)", 1, 200],
    ]);
    expect(entries[1]).toMatchObject({ at: new Date(Date.UTC(2026, 10, 29, 10, 0, 1)), until: new Date(Date.UTC(2026, 10, 29, 10, 0, 21)), call: { correlationId: "c-21" } });
  });
});
