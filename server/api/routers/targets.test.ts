import { TRPCError } from "@trpc/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { serviceTargets } from "@/db/schema";
import { createTestDb, seedPeople, type People, type TestDb } from "@/server/testing/test-db";
import { callerAs } from "../testing";

let t: TestDb;
let p: People;
beforeEach(async () => {
  t = createTestDb();
  p = await seedPeople(t.db);
});
afterEach(() => t.close());

describe("service targets", () => {
  it("stores the API key encrypted, lists it masked, and points an engagement at the target", async () => {
    const admin = callerAs(t.db, p.admin);
    const { id } = await admin.targets.create({ name: "Production", baseUrl: "https://api.codat.io/", apiKey: "live-key-abcdef123456" });
    const row = t.db.select().from(serviceTargets).get()!;
    expect(row.apiKeyCipher).not.toContain("live-key");
    const [listed] = await callerAs(t.db, p.support).targets.list();
    expect(listed).toMatchObject({ name: "Production", baseUrl: "https://api.codat.io", kind: "service", apiKeyMasked: "••••3456" });
    expect(JSON.stringify(listed)).not.toContain("live-key");

    const eng = await callerAs(t.db, p.support).engagements.create({ organizationId: p.orgA, platformKey: "qhyg" });
    await callerAs(t.db, p.support).targets.assign({ engagementId: eng.id, serviceTargetId: id });
    const detail = await callerAs(t.db, p.support).engagements.get({ engagementId: eng.id });
    expect(detail.serviceTarget).toMatchObject({ id, name: "Production" });
    const [event] = await callerAs(t.db, p.support).engagements.timeline({ engagementId: eng.id });
    expect(event!.summary).toBe("Pointed the engagement at Production (https://api.codat.io)");
  });

  it("refuses a base URL that is not http(s), with a field error, and stores nothing", async () => {
    const error = await callerAs(t.db, p.admin).targets.create({ name: "Bad", baseUrl: "ftp://x", apiKey: "k" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).cause).toMatchObject({ fields: { baseUrl: expect.any(String) } });
    expect(t.db.select().from(serviceTargets).all()).toHaveLength(0);
  });
});
