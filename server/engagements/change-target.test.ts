/**
 * Every path that sets an engagement's service target, in the domain (without the router): a new
 * engagement starts on the built-in sandbox and on nothing else; pointing one at a target is
 * refused for a target it may not use, whoever calls.
 */
import { and, asc, eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditEvents, engagements, engagementSteps, mailOutbox, migrationItems, migrationRuns } from "@/db/schema";
import { callerAs, trpcError } from "@/server/testing/caller";
import { seedHandover } from "@/server/testing/handover-fixture";
import { createServiceTarget, ensureBuiltInSandbox, archiveServiceTarget } from "@/server/targets/targets";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase, TEST_NOTIFY } from "@/server/testing/test-db";
import { changeTarget, getTargetChoices } from "./change-target";
import { createEngagement } from "./create-engagement";

let t: TestDatabase;
let p: People;
beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterEach(() => t.close());

const targetOf = async (id: string) => (await t.db.select({ id: engagements.serviceTargetId }).from(engagements).where(eq(engagements.id, id)).limit(1))[0]!.id;
const target = async (name: string, organizationId: string | null, kind: "service" | "sandbox" = "service") =>
  (await createServiceTarget(t.database, TEST_KEY_RING, p.admin, { name, baseUrl: "https://api.codat.io", apiKey: `${name}-key-0000`, kind, organizationId })).id;

describe("a new engagement", () => {
  it("starts on the built-in sandbox, never on a target an admin merely labelled sandbox", async () => {
    // Added before the built-in sandbox, and labelled a sandbox: the old rule picked the oldest such target.
    const labelled = await target("Labelled sandbox", p.orgB, "sandbox");
    expect(await targetOf((await createEngagement(t.database, TEST_NOTIFY, p.support, { organizationId: p.orgA, platformKey: "qhyg" })).id)).toBeNull();
    const builtIn = (await ensureBuiltInSandbox(t.database, TEST_KEY_RING, { url: "http://127.0.0.1:4010", newApiKey: async () => "sandbox-key-0000" }))!.id;
    const eng = (await createEngagement(t.database, TEST_NOTIFY, p.support, { organizationId: p.orgA, platformKey: "fbrh" })).id;
    expect(await targetOf(eng)).toBe(builtIn);
    expect(await targetOf(eng)).not.toBe(labelled);
  });
});

describe("changing an engagement's target", () => {
  it("takes its organisation's targets and the built-in sandbox; refuses another organisation's, an unassigned and an archived one, changing nothing", async () => {
    const builtIn = (await ensureBuiltInSandbox(t.database, TEST_KEY_RING, { url: "http://127.0.0.1:4010", newApiKey: async () => "sandbox-key-0000" }))!.id;
    const own = await target("Org A prod", p.orgA);
    const other = await target("Org B prod", p.orgB);
    const unassigned = await target("Whose", null);
    const old = await target("Org A old", p.orgA);
    await archiveServiceTarget(t.database, p.admin, { targetId: old });
    const eng = (await createEngagement(t.database, TEST_NOTIFY, p.support, { organizationId: p.orgA, platformKey: "qhyg" })).id;

    for (const [serviceTargetId, words] of [
      [other, "another organisation's account"],
      [unassigned, "not assigned to an organisation yet"],
      [old, "is archived"],
    ] as const) {
      // An admin is staff too: the rule is the same for everyone.
      for (const actor of [p.support, p.admin]) {
        await expect(changeTarget(t.database, TEST_NOTIFY, actor, { engagementId: eng, serviceTargetId })).rejects.toThrow(expect.objectContaining({ code: "BAD_INPUT", fields: { serviceTargetId: expect.stringContaining(words) } }));
      }
    }
    expect(await targetOf(eng)).toBe(builtIn);
    expect(await t.db.select().from(auditEvents).where(eq(auditEvents.action, "engagement.target_changed"))).toHaveLength(0);

    await changeTarget(t.database, TEST_NOTIFY, p.support, { engagementId: eng, serviceTargetId: own });
    expect(await targetOf(eng)).toBe(own);
    await changeTarget(t.database, TEST_NOTIFY, p.support, { engagementId: eng, serviceTargetId: builtIn });
    expect(await targetOf(eng)).toBe(builtIn);
    await expect(changeTarget(t.database, TEST_NOTIFY, p.customerA, { engagementId: eng, serviceTargetId: own })).rejects.toThrow(expect.objectContaining({ code: "FORBIDDEN" }));
  });

  it("offers the same targets the rule takes", async () => {
    const builtIn = (await ensureBuiltInSandbox(t.database, TEST_KEY_RING, { url: "http://127.0.0.1:4010", newApiKey: async () => "sandbox-key-0000" }))!.id;
    const own = await target("Org A prod", p.orgA);
    await target("Org B prod", p.orgB);
    await target("Whose", null);
    const eng = (await createEngagement(t.database, TEST_NOTIFY, p.support, { organizationId: p.orgA, platformKey: "qhyg" })).id;
    const { options } = await getTargetChoices(t.database, p.support, eng);
    expect(options.map((o) => o.id)).toEqual([builtIn, own]);
    for (const o of options) await changeTarget(t.database, TEST_NOTIFY, p.support, { engagementId: eng, serviceTargetId: o.id });
  });
});

describe("changing the target of an engagement whose companies exist on the current one", () => {
  const setUp = async () => {
    const builtIn = (await ensureBuiltInSandbox(t.database, TEST_KEY_RING, { url: "http://127.0.0.1:4010", newApiKey: async () => "sandbox-key-0000" }))!.id;
    const f = await seedHandover(t.db, p, { companies: [{ state: "verified" }, { state: "reauth_required" }, { state: "set_aside", outcomeReason: "Closed." }] });
    const own = await target("Org A prod", p.orgA);
    const before = await t.db.select().from(migrationItems).where(eq(migrationItems.engagementId, f.engagementId)).orderBy(asc(migrationItems.position));
    return { f, builtIn, own, before };
  };
  const itemsOf = (engagementId: string) => t.db.select().from(migrationItems).where(eq(migrationItems.engagementId, engagementId)).orderBy(asc(migrationItems.position));

  it("is refused with the reason, changing nothing", async () => {
    const { f, builtIn, own, before } = await setUp();
    const error = await trpcError(callerAs(t.database, p.support).targets.assign({ engagementId: f.engagementId, serviceTargetId: own }));
    expect(error.code).toBe("PRECONDITION_FAILED");
    expect(error.message).toContain("2 companies of this engagement already exist on Ferry sandbox");
    expect(error.message).toContain("their companyId and connectionId mean nothing on Org A prod");
    expect(error.message).toContain("start the companies over on Org A prod");
    expect(await targetOf(f.engagementId)).toBe(builtIn);
    expect(await itemsOf(f.engagementId)).toEqual(before);
    expect(await t.db.select().from(auditEvents).where(eq(auditEvents.action, "engagement.target_changed"))).toHaveLength(0);
  });

  it("starts the companies over on the new target when support says so: audited, the old ids kept in each company's history, the test to pass again, the customer told", async () => {
    const { f, own, before } = await setUp();
    await callerAs(t.database, p.support).targets.assign({ engagementId: f.engagementId, serviceTargetId: own, startOver: true });
    expect(await targetOf(f.engagementId)).toBe(own);
    const after = await itemsOf(f.engagementId);
    // The two companies made on the sandbox start over; the one set aside (never made) is as it was.
    expect(after.map((i) => [i.state, i.companyId, i.connectionId, i.lastError, i.checks])).toEqual([
      ["pending", null, null, null, null],
      ["pending", null, null, null, null],
      ["set_aside", null, null, null, null],
    ]);
    const history = await t.db.select().from(auditEvents).where(eq(auditEvents.action, "migration_item.started_over")).orderBy(asc(auditEvents.id));
    expect(history.map((e) => [e.targetId, e.actorId, e.before, e.after])).toEqual(
      before.slice(0, 2).map((i) => [i.id, p.support.id, { serviceTarget: "Ferry sandbox", companyId: i.companyId, connectionId: i.connectionId, state: i.state }, { company: i.name, serviceTarget: "Org A prod" }]),
    );
    expect((await t.db.select().from(auditEvents).where(eq(auditEvents.action, "engagement.target_changed")))[0]?.after).toMatchObject({ serviceTarget: "Org A prod", startedOver: 2 });
    const [step5] = await t.db.select().from(engagementSteps).where(and(eq(engagementSteps.engagementId, f.engagementId), eq(engagementSteps.step, 5)));
    expect(step5?.state).not.toBe("done");
    const told = await t.db.select().from(mailOutbox).where(eq(mailOutbox.to, p.customerA.email));
    const mail = told.find((m) => m.subject.includes("Your companies start over on another service account"));
    expect(mail?.text).toContain("pointed the migration at Org A prod instead of Ferry sandbox. 2 companies that were already made on Ferry sandbox will be migrated again on Org A prod");
  });

  it("refuses to start companies over while a run of the engagement is under way", async () => {
    const { f, own } = await setUp();
    await t.db.insert(migrationRuns).values({ id: crypto.randomUUID(), engagementId: f.engagementId, kind: "bulk", status: "running", requestedById: p.support.id, requestedAt: new Date() });
    const error = await trpcError(callerAs(t.database, p.support).targets.assign({ engagementId: f.engagementId, serviceTargetId: own, startOver: true }));
    expect(error).toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringContaining("A run of this engagement is still under way on Ferry sandbox") as string });
  });
});
