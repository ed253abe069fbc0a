/**
 * Every path that sets an engagement's service target, in the domain (without the router): a new
 * engagement starts on the built-in sandbox and on nothing else; pointing one at a target is
 * refused for a target it may not use, whoever calls.
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditEvents, engagements } from "@/db/schema";
import { createServiceTarget, ensureBuiltInSandbox, archiveServiceTarget } from "@/server/targets/targets";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase } from "@/server/testing/test-db";
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
    expect(await targetOf((await createEngagement(t.database, p.support, { organizationId: p.orgA, platformKey: "qhyg" })).id)).toBeNull();
    const builtIn = (await ensureBuiltInSandbox(t.database, TEST_KEY_RING, { url: "http://127.0.0.1:4010", newApiKey: async () => "sandbox-key-0000" }))!.id;
    const eng = (await createEngagement(t.database, p.support, { organizationId: p.orgA, platformKey: "fbrh" })).id;
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
    const eng = (await createEngagement(t.database, p.support, { organizationId: p.orgA, platformKey: "qhyg" })).id;

    for (const [serviceTargetId, words] of [
      [other, "another organisation's account"],
      [unassigned, "not assigned to an organisation yet"],
      [old, "is archived"],
    ] as const) {
      // An admin is staff too: the rule is the same for everyone.
      for (const actor of [p.support, p.admin]) {
        await expect(changeTarget(t.database, actor, { engagementId: eng, serviceTargetId })).rejects.toThrow(expect.objectContaining({ code: "BAD_INPUT", fields: { serviceTargetId: expect.stringContaining(words) } }));
      }
    }
    expect(await targetOf(eng)).toBe(builtIn);
    expect(await t.db.select().from(auditEvents).where(eq(auditEvents.action, "engagement.target_changed"))).toHaveLength(0);

    await changeTarget(t.database, p.support, { engagementId: eng, serviceTargetId: own });
    expect(await targetOf(eng)).toBe(own);
    await changeTarget(t.database, p.support, { engagementId: eng, serviceTargetId: builtIn });
    expect(await targetOf(eng)).toBe(builtIn);
    await expect(changeTarget(t.database, p.customerA, { engagementId: eng, serviceTargetId: own })).rejects.toThrow(expect.objectContaining({ code: "FORBIDDEN" }));
  });

  it("offers the same targets the rule takes", async () => {
    const builtIn = (await ensureBuiltInSandbox(t.database, TEST_KEY_RING, { url: "http://127.0.0.1:4010", newApiKey: async () => "sandbox-key-0000" }))!.id;
    const own = await target("Org A prod", p.orgA);
    await target("Org B prod", p.orgB);
    await target("Whose", null);
    const eng = (await createEngagement(t.database, p.support, { organizationId: p.orgA, platformKey: "qhyg" })).id;
    const { options } = await getTargetChoices(t.database, p.support, eng);
    expect(options.map((o) => o.id)).toEqual([builtIn, own]);
    for (const o of options) await changeTarget(t.database, p.support, { engagementId: eng, serviceTargetId: o.id });
  });
});
