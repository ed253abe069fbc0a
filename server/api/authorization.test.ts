/**
 * Authorization of every procedure for every role: allowed, UNAUTHORIZED (no session) or
 * FORBIDDEN (wrong role); another organisation's engagement is NOT_FOUND to a customer. The table must name every procedure the router
 * has, so a new procedure without a row fails here.
 */
import { DEFAULT_CLOCK_TARGETS } from "@/core/engagements/clocks";
import { TRPCError } from "@trpc/server";
import { eq } from "drizzle-orm";
import { users } from "@/db/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngagement } from "@/server/engagements/create-engagement";
import type { Actor } from "@/core/accounts/actor";
import { appRouter } from "./root";
import { createServiceTarget } from "@/server/targets/targets";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase, TEST_NOTIFY } from "@/server/testing/test-db";
import { callerAs } from "../testing/caller";

type Audience = "public" | "signedIn" | "staff" | "admin" | "customer";
type Fixtures = People & { engA: string; engB: string; targetId: string; invitationToken: string; n: () => number };
type Row = { audience: Audience; input: (f: Fixtures) => unknown };

/** Every procedure, its audience and a valid input. */
const TABLE: Record<string, Row> = {
  "me.get": { audience: "signedIn", input: () => undefined },
  // Wrong current password: refused past the access check, so no session really ends here.
  "me.changePassword": { audience: "signedIn", input: () => ({ currentPassword: "not the password", newPassword: "a new long password" }) },
  "me.signOutEverywhere": { audience: "signedIn", input: () => undefined },
  "me.mailPreference": { audience: "signedIn", input: () => undefined },
  "me.setMailPreference": { audience: "signedIn", input: () => ({ preference: "every" }) },
  "platforms.list": { audience: "signedIn", input: () => undefined },
  "organizations.list": { audience: "staff", input: () => undefined },
  "organizations.create": { audience: "admin", input: (f) => ({ name: `Org ${f.n()}` }) },
  "organizations.clockTargets": { audience: "staff", input: (f) => ({ organizationId: f.orgA }) },
  "organizations.setClockTargets": { audience: "admin", input: (f) => ({ organizationId: f.orgA, targets: DEFAULT_CLOCK_TARGETS }) },
  "users.list": { audience: "admin", input: () => undefined },
  "users.staff": { audience: "staff", input: () => undefined },
  "users.setActive": { audience: "admin", input: (f) => ({ userId: f.support2.id, active: true }) },
  "users.signOutEverywhere": { audience: "admin", input: (f) => ({ userId: f.support2.id }) },
  "invitations.list": { audience: "admin", input: () => undefined },
  "invitations.create": {
    audience: "admin",
    input: (f) => ({ email: `new${f.n()}@org-a.test`, name: "New Person", role: "customer", organizationId: f.orgA }),
  },
  "invitations.revoke": { audience: "admin", input: () => ({ invitationId: "placeholder" }) },
  "invitations.revealLink": { audience: "admin", input: () => ({ invitationId: "no-such-invitation" }) },
  "invitations.lookup": { audience: "public", input: (f) => ({ token: f.invitationToken }) },
  "invitations.accept": { audience: "public", input: () => ({ token: "no-such-token-123", name: "X", password: "long enough password" }) },
  "outbox.list": { audience: "admin", input: () => undefined },
  "outbox.search": { audience: "admin", input: () => ({ search: "FER-1001", page: 1, pageSize: 25 }) },
  "outbox.revealLink": { audience: "admin", input: () => ({ id: "no-such-message" }) },
  "targets.list": { audience: "admin", input: () => undefined },
  "targets.create": { audience: "admin", input: (f) => ({ name: `Prod ${f.n()}`, baseUrl: "https://api.example.test", apiKey: "key-123", organizationId: f.orgB }) },
  "targets.rename": { audience: "admin", input: (f) => ({ targetId: f.targetId, name: `Sandbox ${f.n()}` }) },
  "targets.setLimits": { audience: "admin", input: (f) => ({ targetId: f.targetId, requestsPerMinute: 600_000, dailyQuota: null }) },
  "targets.replaceKey": { audience: "admin", input: (f) => ({ targetId: f.targetId, apiKey: `key-of-org-a-${f.n()}` }) },
  // Unknown targets: refused past the access check, so the shared target stays usable.
  "targets.archive": { audience: "admin", input: () => ({ targetId: "no-such-target" }) },
  "targets.assignOrganization": { audience: "admin", input: (f) => ({ targetId: "no-such-target", organizationId: f.orgA }) },
  // Nothing listens on its port: the answer is "unreachable", at once.
  "targets.testConnection": { audience: "admin", input: (f) => ({ targetId: f.targetId }) },
  "targets.choices": { audience: "staff", input: (f) => ({ engagementId: f.engA }) },
  "targets.assign": { audience: "staff", input: (f) => ({ engagementId: f.engA, serviceTargetId: f.targetId }) },
  // The reads serve both sides: a customer's list holds their organisation's engagements only.
  "engagements.list": { audience: "signedIn", input: () => ({ page: 1, pageSize: 10 }) },
  "engagements.get": { audience: "signedIn", input: (f) => ({ engagementId: f.engA }) },
  "engagements.timeline": { audience: "signedIn", input: (f) => ({ engagementId: f.engA }) },
  "engagements.create": {
    audience: "staff",
    input: (f) => ({ organizationId: f.orgB, platformKey: ["fbrh", "vxvy", "pbtz", "rwuv", "fztf"][f.n() % 5] }),
  },
  "engagements.step": { audience: "staff", input: (f) => ({ engagementId: f.engA, step: 1, action: "start" }) },
  "engagements.setStatus": { audience: "staff", input: (f) => ({ engagementId: f.engA, status: "on_hold", reasonCode: "customer_unavailable" }) },
  "engagements.setOwner": { audience: "staff", input: (f) => ({ engagementId: f.engA, ownerId: f.support.id }) },
  // Steps 1–4 as flows: read by both sides of the engagement; each change by the side it belongs to.
  "intake.get": { audience: "signedIn", input: (f) => ({ engagementId: f.engA }) },
  "intake.items": { audience: "signedIn", input: (f) => ({ engagementId: f.engA, page: 1, pageSize: 10 }) },
  "intake.accept": { audience: "staff", input: (f) => ({ engagementId: f.engA, submissionId: "no-such-submission" }) },
  "intake.return": { audience: "staff", input: (f) => ({ engagementId: f.engA, submissionId: "no-such-submission", note: "Wrong app" }) },
  "windows.plan": { audience: "signedIn", input: (f) => ({ engagementId: f.engA }) },
  "windows.propose": {
    audience: "staff",
    input: (f) => ({ engagementId: f.engA, windows: [{ startsAt: new Date(Date.now() + 86_400_000), endsAt: new Date(Date.now() + 2 * 86_400_000) }] }),
  },
  "windows.checkOverlaps": { audience: "staff", input: (f) => ({ engagementId: f.engA, windows: [{ startsAt: new Date(Date.now() + 86_400_000), endsAt: new Date(Date.now() + 2 * 86_400_000) }] }) },
  "windows.withdraw": { audience: "staff", input: (f) => ({ engagementId: f.engA, windowId: "no-such-window" }) },
  "windows.accept": { audience: "customer", input: (f) => ({ engagementId: f.engA, windowId: "no-such-window" }) },
  "windows.reschedule": { audience: "staff", input: (f) => ({ engagementId: f.engA, reason: "Customer asked" }) },
  "windows.decline": { audience: "customer", input: (f) => ({ engagementId: f.engA, reason: "Month end", suggested: [] }) },
  // Customers' requests for engagements: a customer asks, support answers (unknown ids: refused past the access check).
  "requests.list": { audience: "signedIn", input: () => undefined },
  "requests.create": {
    audience: "customer",
    // A second ask for the same platform is refused (CONFLICT) past the access check, which still lets the customer in.
    input: () => ({ platformKey: "fbrh", companies: 12, preferredFrom: new Date(Date.now() + 7 * 86_400_000), preferredTo: null }),
  },
  "requests.accept": { audience: "staff", input: () => ({ requestId: "no-such-request" }) },
  "requests.decline": { audience: "staff", input: () => ({ requestId: "no-such-request", reason: "Not now" }) },
  "confirmations.get": { audience: "signedIn", input: (f) => ({ engagementId: f.engA }) },
  "confirmations.callbackUrl": { audience: "signedIn", input: (f) => ({ engagementId: f.engA, note: "Confirmed on a call" }) },
  "confirmations.syncingDisabled": { audience: "signedIn", input: (f) => ({ engagementId: f.engA, note: "Confirmed on a call" }) },
  "confirmations.callbackCheck": { audience: "signedIn", input: (f) => ({ engagementId: f.engA }) },
  "confirmations.startCallbackCheck": { audience: "signedIn", input: (f) => ({ engagementId: f.engA }) },
  "confirmations.refreshCallbackCheck": { audience: "signedIn", input: (f) => ({ engagementId: f.engA }) },
  "confirmations.cancelCallbackCheck": { audience: "signedIn", input: (f) => ({ engagementId: f.engA }) },
  "handover.get": { audience: "signedIn", input: (f) => ({ engagementId: f.engA }) },
  "handover.items": { audience: "signedIn", input: (f) => ({ engagementId: f.engA, page: 1, pageSize: 10 }) },
  // engA has no companies: refused past the access check, so nothing is produced or purged here.
  "handover.confirm": { audience: "staff", input: (f) => ({ engagementId: f.engA }) },
  "handover.acknowledge": { audience: "customer", input: (f) => ({ engagementId: f.engA }) },
  "handover.acknowledgeOnBehalf": { audience: "staff", input: (f) => ({ engagementId: f.engA, note: "By email." }) },
  "lastMile.get": { audience: "signedIn", input: (f) => ({ engagementId: f.engA }) },
  "lastMile.setHypercareDays": { audience: "staff", input: (f) => ({ engagementId: f.engA, days: 7 }) },
  // Nothing is watched on engA: refused past the access check.
  "lastMile.checkNow": { audience: "staff", input: (f) => ({ engagementId: f.engA }) },
  // Nothing dropped on engA: refused past the access check.
  "lastMile.markDropsSeen": { audience: "staff", input: (f) => ({ engagementId: f.engA }) },
  "portfolio.get": { audience: "staff", input: () => ({}) },
  "portfolio.workload": { audience: "staff", input: () => undefined },
  "calendar.get": { audience: "staff", input: () => ({ view: "week", scope: "everyone", day: "2026-12-07" }) },
  "calendar.feed": { audience: "staff", input: () => undefined },
  "calendar.resetFeed": { audience: "staff", input: () => undefined },
  "tests.items": { audience: "staff", input: (f) => ({ engagementId: f.engA }) },
  // engA has no companies yet: refused past the access check.
  "tests.start": { audience: "staff", input: (f) => ({ engagementId: f.engA, kind: "rehearsal" }) },
  "tests.list": { audience: "signedIn", input: (f) => ({ engagementId: f.engA }) },
  "tests.get": { audience: "signedIn", input: (f) => ({ engagementId: f.engA, runId: "no-such-run" }) },
  "tests.controls": { audience: "signedIn", input: (f) => ({ engagementId: f.engA }) },
  "tests.cancel": { audience: "staff", input: (f) => ({ engagementId: f.engA, runId: "no-such-run" }) },
  "bulk.overview": { audience: "signedIn", input: (f) => ({ engagementId: f.engA }) },
  "bulk.items": { audience: "signedIn", input: (f) => ({ engagementId: f.engA, page: 1, pageSize: 10 }) },
  "bulk.timeline": { audience: "signedIn", input: (f) => ({ engagementId: f.engA, itemId: "no-such-item" }) },
  // engA is not past step 5: every control is refused past the access check.
  "bulk.start": { audience: "staff", input: (f) => ({ engagementId: f.engA }) },
  "bulk.pause": { audience: "staff", input: (f) => ({ engagementId: f.engA }) },
  "bulk.resume": { audience: "staff", input: (f) => ({ engagementId: f.engA }) },
  "bulk.cancel": { audience: "staff", input: (f) => ({ engagementId: f.engA, reason: "Customer asked" }) },
  "bulk.retryFailed": { audience: "staff", input: (f) => ({ engagementId: f.engA }) },
  "bulk.setAside": { audience: "staff", input: (f) => ({ engagementId: f.engA, itemId: "no-such-item", reason: "Customer asked" }) },
  "bulk.retryItem": { audience: "staff", input: (f) => ({ engagementId: f.engA, itemId: "no-such-item" }) },
  // The supplementary file: read by both sides; engA has no file, so the review is refused past the access check.
  "supplementary.get": { audience: "signedIn", input: (f) => ({ engagementId: f.engA }) },
  "supplementary.accept": { audience: "staff", input: (f) => ({ engagementId: f.engA, fileId: "no-such-file" }) },
  "supplementary.sendBack": { audience: "staff", input: (f) => ({ engagementId: f.engA, fileId: "no-such-file", note: "Wrong tokens" }) },
};

/** Procedures a customer may call on an engagement: another organisation's must look exactly like an unknown id. */
const CUSTOMER_ENGAGEMENT_PROCEDURES = Object.entries(TABLE)
  .filter(([, row]) => (row.audience === "signedIn" || row.audience === "customer") && JSON.stringify(row.input({ engA: "E", engB: "E" } as Fixtures) ?? {}).includes('"engagementId"'))
  .map(([path]) => path);

const ROLES = ["anonymous", "admin", "support", "customer"] as const;
type Who = (typeof ROLES)[number];

function expected(audience: Audience, who: Who): "allowed" | "UNAUTHORIZED" | "FORBIDDEN" {
  if (audience === "public") return "allowed";
  if (who === "anonymous") return "UNAUTHORIZED";
  switch (audience) {
    case "signedIn":
      return "allowed";
    case "staff":
      return who === "admin" || who === "support" ? "allowed" : "FORBIDDEN";
    case "admin":
      return who === "admin" ? "allowed" : "FORBIDDEN";
    case "customer":
      return who === "customer" ? "allowed" : "FORBIDDEN";
    default: {
      const never: never = audience;
      return never;
    }
  }
}

let t: TestDatabase;
let f: Fixtures;

beforeAll(async () => {
  t = await createTestDatabase();
  const people = await seedPeople(t.database);
  let counter = 0;
  const engA = (await createEngagement(t.database, TEST_NOTIFY, people.support, { organizationId: people.orgA, platformKey: "qhyg" })).id;
  const engB = (await createEngagement(t.database, TEST_NOTIFY, people.support, { organizationId: people.orgB, platformKey: "qhyg" })).id;
  const targetId = (await createServiceTarget(t.database, TEST_KEY_RING, null, { name: "Sandbox", baseUrl: "http://127.0.0.1:1", apiKey: "key-of-org-a-1234", kind: "sandbox", organizationId: people.orgA })).id;
  f = { ...people, engA, engB, targetId, invitationToken: "unknown-token-abc", n: () => ++counter };
});
afterAll(() => t.close());

function actorFor(who: Who): Actor | null {
  switch (who) {
    case "anonymous":
      return null;
    case "admin":
      return f.admin;
    case "support":
      return f.support;
    case "customer":
      return f.customerA;
    default: {
      const never: never = who;
      return never;
    }
  }
}

async function call(who: Who, path: string, input: unknown): Promise<unknown> {
  const caller = callerAs(t.database, actorFor(who)) as unknown as Record<string, Record<string, (i: unknown) => Promise<unknown>>>;
  const [ns, name] = path.split(".") as [string, string];
  return caller[ns]![name]!(input);
}

describe("the authorization table", () => {
  it("names every procedure of the router", () => {
    expect(Object.keys(appRouter._def.procedures).sort()).toEqual(Object.keys(TABLE).sort());
  });
});

describe.each(Object.entries(TABLE))("%s", (path, row) => {
  it.each(ROLES)(`as %s`, async (who) => {
    const want = expected(row.audience, who);
    const outcome = await call(who, path, row.input(f)).then(
      () => "allowed",
      (error: unknown) => {
        if (!(error instanceof TRPCError)) throw error;
        if (error.code === "UNAUTHORIZED" || error.code === "FORBIDDEN") return error.code;
        // Past the access check, some calls fail on their placeholder input or repeated state
        // (e.g. starting a step twice): that still means the role was let in.
        if (["BAD_REQUEST", "NOT_FOUND", "PRECONDITION_FAILED", "CONFLICT"].includes(error.code)) return "allowed";
        throw error;
      },
    );
    expect(outcome).toBe(want);
  });
});

describe("organisation scoping", () => {
  it("a customer cannot read another organisation's engagement, and is told exactly what an unknown id gets", async () => {
    const customer = callerAs(t.database, f.customerA);
    const unknown = await customer.engagements.get({ engagementId: "no-such-engagement" }).catch((e: unknown) => e);
    // One call at a time, each made when it is awaited (made together, a refusal before its
    // turn would go unhandled).
    for (const call of [
      () => customer.engagements.get({ engagementId: f.engB }),
      () => customer.engagements.timeline({ engagementId: f.engB }),
      () => customer.handover.get({ engagementId: f.engB }),
      () => customer.handover.items({ engagementId: f.engB }),
      () => customer.handover.acknowledge({ engagementId: f.engB }),
      () => customer.supplementary.get({ engagementId: f.engB }),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "NOT_FOUND", message: (unknown as TRPCError).message });
    }
  });

  it.each(CUSTOMER_ENGAGEMENT_PROCEDURES)("%s: another organisation's engagement answers exactly like an unknown id, and changes nothing", async (path) => {
    const withEngagement = (engagementId: string) => ({ ...(TABLE[path]!.input(f) as object), engagementId });
    const before = await callerAs(t.database, f.support).engagements.timeline({ engagementId: f.engB });
    const unknown = await call("customer", path, withEngagement("no-such-engagement")).catch((e: unknown) => e);
    const other = await call("customer", path, withEngagement(f.engB)).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ code: "NOT_FOUND" });
    expect(other).toMatchObject({ code: "NOT_FOUND", message: (unknown as TRPCError).message });
    expect(await callerAs(t.database, f.support).engagements.timeline({ engagementId: f.engB })).toEqual(before);
  });

  it("an unknown engagement id is NOT_FOUND for everyone", async () => {
    await expect(callerAs(t.database, f.customerA).engagements.get({ engagementId: "nope" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(callerAs(t.database, f.support).engagements.get({ engagementId: "nope" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("a customer's list holds only their organisation's engagements", async () => {
    const list = await callerAs(t.database, f.customerB).engagements.list({ page: 1, pageSize: 50 });
    expect(list.items.length).toBeGreaterThan(0);
    expect(list.items.every((e) => e.organizationId === f.orgB)).toBe(true);
  });

  it("a customer's list stays their organisation's whatever the filter names", async () => {
    const theirs = await callerAs(t.database, f.customerB).engagements.list({ page: 1, pageSize: 50 });
    const asked = await callerAs(t.database, f.customerB).engagements.list({ organizationId: f.orgA, page: 1, pageSize: 50 });
    expect(asked.items.map((e) => e.id)).toEqual(theirs.items.map((e) => e.id));
    expect(asked.items.some((e) => e.id === f.engA)).toBe(false);
    // Searching another organisation's name or reference finds nothing of theirs either.
    const engA = await callerAs(t.database, f.support).engagements.get({ engagementId: f.engA });
    for (const search of [engA.organization.name, engA.reference]) {
      expect((await callerAs(t.database, f.customerB).engagements.list({ search, page: 1, pageSize: 50 })).items.some((e) => e.organizationId !== f.orgB)).toBe(false);
    }
  });

  it("a deactivated user's session no longer works (the actor is reloaded per request)", async () => {
    const { loadActor } = await import("@/server/accounts/users");
    const claim = async () => {
      const [row] = await t.db.select({ sessionVersion: users.sessionVersion }).from(users).where(eq(users.id, f.support2.id)).limit(1);
      return { userId: f.support2.id, sessionVersion: row!.sessionVersion };
    };
    // What the request context does with a session: load the person behind its claim, then call.
    const callWith = async (c: Awaited<ReturnType<typeof claim>>) => callerAs(t.database, await loadActor(t.database, c)).engagements.list({ page: 1, pageSize: 5 });
    const before = await claim();
    await expect(callWith(before)).resolves.toMatchObject({ items: expect.any(Array) });
    await callerAs(t.database, f.admin).users.setActive({ userId: f.support2.id, active: false });
    await expect(callWith(before)).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await callerAs(t.database, f.admin).users.setActive({ userId: f.support2.id, active: true });
    // Reactivation does not revive the sessions the deactivation ended; a new sign-in works.
    await expect(callWith(before)).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(callWith(await claim())).resolves.toMatchObject({ items: expect.any(Array) });
  });
});
