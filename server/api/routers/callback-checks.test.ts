/**
 * Step 3 proven by a round trip, through the procedures on a temporary database against a real
 * sandbox: the throwaway company and connection made on the engagement's target, the customer's
 * authorization proving the callback URL (step 3 completed with the proof, the company deleted),
 * a cancelled one, the service's refusal kept whole, and every refusal with nothing written.
 * The tests tagged both-databases run on PostgreSQL too.
 */
import { and, count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents, callbackChecks, engagements } from "@/db/schema";
import { ZStepEvidence } from "@/core/engagements/evidence";
import { engineTestBed } from "@/server/testing/test-bed";
import { basicAuth } from "@/server/testing/test-sandbox";
import { callerAs, testConfig, trpcError } from "../../testing/caller";

const bed = engineTestBed();
const config = { ...testConfig(), callbackCheckRefreshMs: 0 };
const as = (actor: Parameters<typeof callerAs>[1]) => callerAs(bed.t.database, actor, config);
const support = () => as(bed.people.support);

/** An engagement of a new organisation with step 1 done, on a new sandbox client (or the given API key), and its customer. */
async function atStep3(extra: { target?: { apiKey: string } } = {}) {
  const eng = await bed.ready([{ name: "Round Trip Co", records: 5 }], { stopAfterStep1: true, ...extra });
  return { ...eng, as: as(eng.customer) };
}

const checkRows = async (engagementId: string) => bed.t.db.select().from(callbackChecks).where(eq(callbackChecks.engagementId, engagementId));

/** The company as the service answers it now (status only). */
async function companyStatus(apiKey: string, companyId: string): Promise<number> {
  const res = await fetch(`${bed.sb.url}/companies/${companyId}`, { headers: { authorization: basicAuth(apiKey) } });
  await res.arrayBuffer();
  return res.status;
}

const auditCount = async (engagementId: string, action: string) =>
  (await bed.t.db.select({ n: count() }).from(auditEvents).where(and(eq(auditEvents.engagementId, engagementId), eq(auditEvents.action, action))))[0]!.n;

describe("the round trip", () => {
  it("proves the callback URL when the customer authorizes the test connection: step 3 done with the proof, the company deleted", { tags: ["both-databases"] }, async () => {
    const eng = await atStep3();
    const before = await eng.as.confirmations.callbackCheck({ engagementId: eng.engagementId });
    expect(before).toMatchObject({ status: "none", canStart: true, cannotStart: null, linkUrl: null });

    const started = await eng.as.confirmations.startCallbackCheck({ engagementId: eng.engagementId });
    expect(started.status).toBe("waiting");
    expect(started.linkUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/link\//);
    expect(started.companyId).toBeTruthy();
    // Asked again before anyone authorized: still waiting.
    const asked = await eng.as.confirmations.refreshCallbackCheck({ engagementId: eng.engagementId });
    expect(asked).toMatchObject({ status: "waiting", refusal: null, error: null });
    expect(asked.checkedAt).toBeInstanceOf(Date);

    const [row] = await checkRows(eng.engagementId);
    expect(await companyStatus(eng.apiKey, row!.companyId!)).toBe(200);
    await bed.sb.control.link(row!.companyId!, row!.connectionId!);
    const proven = await eng.as.confirmations.refreshCallbackCheck({ engagementId: eng.engagementId });
    expect(proven).toMatchObject({ status: "proven", companyDeleted: true, linkUrl: null, canStart: false });
    expect(await companyStatus(eng.apiKey, row!.companyId!)).toBe(404);

    const detail = await support().engagements.get({ engagementId: eng.engagementId });
    const step3 = detail.steps.find((s) => s.number === 3)!;
    expect(step3.state).toBe("done");
    const evidence = ZStepEvidence.parse(step3.evidence);
    expect(evidence.flow).toMatchObject({ kind: "callback_confirmed", callbackUrl: "https://quickbooksonline.codat.io/oauth2/callback", proof: { checkId: row!.id, companyId: row!.companyId, connectionId: row!.connectionId } });
    expect(await auditCount(eng.engagementId, "callback_check.started")).toBe(1);
    expect(await auditCount(eng.engagementId, "callback_check.proven")).toBe(1);
    // Proven once: nothing more is asked, and no new round trip is offered.
    expect((await eng.as.confirmations.refreshCallbackCheck({ engagementId: eng.engagementId })).status).toBe("proven");
    expect((await trpcError(eng.as.confirmations.startCallbackCheck({ engagementId: eng.engagementId }))).message).toBe("Step 3 is done.");
  });

  it("a callback URL missing from the customer's app: the platform's refusal and what to fix; added in its developer console, the same link proves it", { tags: ["both-databases"] }, async () => {
    const eng = await atStep3();
    const callbackUrl = "https://quickbooksonline.codat.io/oauth2/callback";
    // The customer's own app at the platform (the client id they gave in step 1) lists another redirect only.
    await bed.sb.control.setOAuthApp(eng.sandboxClientId!, "qhyg", { appClientId: "flow-client-id", redirectUris: ["https://old-app.example/callback"] });
    await eng.as.confirmations.startCallbackCheck({ engagementId: eng.engagementId });
    const [row] = await checkRows(eng.engagementId);
    await expect(bed.sb.control.link(row!.companyId!, row!.connectionId!)).rejects.toMatchObject({ status: 400 });

    const refused = await eng.as.confirmations.refreshCallbackCheck({ engagementId: eng.engagementId });
    expect(refused.status).toBe("refused");
    expect(refused.refusal).toContain("The redirect_uri query parameter value is invalid");
    expect(refused.refusal).toContain(`redirect_uri=${callbackUrl}`);
    expect(refused.fix).toContain(`Add ${callbackUrl} to your app's redirect URIs exactly as written`);
    expect(refused.consoleUrl).toBe(`${bed.sb.url}/developer/qhyg/apps/flow-client-id`);
    expect(refused.linkUrl).toMatch(/\/link\//);
    expect(await auditCount(eng.engagementId, "callback_check.refused")).toBe(1);
    // Asked again with nothing new: still refused, told once.
    await eng.as.confirmations.refreshCallbackCheck({ engagementId: eng.engagementId });
    expect(await auditCount(eng.engagementId, "callback_check.refused")).toBe(1);
    expect((await support().engagements.get({ engagementId: eng.engagementId })).steps.find((s) => s.number === 3)!.state).not.toBe("done");

    await bed.sb.control.setOAuthApp(eng.sandboxClientId!, "qhyg", { appClientId: "flow-client-id", redirectUris: ["https://old-app.example/callback", callbackUrl] });
    await bed.sb.control.link(row!.companyId!, row!.connectionId!);
    const proven = await eng.as.confirmations.refreshCallbackCheck({ engagementId: eng.engagementId });
    expect(proven).toMatchObject({ status: "proven", companyDeleted: true, fix: null });
    expect((await support().engagements.get({ engagementId: eng.engagementId })).steps.find((s) => s.number === 3)!.state).toBe("done");
  });

  it("keeps one open round trip however often it is started", { tags: ["both-databases"] }, async () => {
    const eng = await atStep3();
    const first = await eng.as.confirmations.startCallbackCheck({ engagementId: eng.engagementId });
    const again = await support().confirmations.startCallbackCheck({ engagementId: eng.engagementId });
    expect(again.id).toBe(first.id);
    expect(await checkRows(eng.engagementId)).toHaveLength(1);
  });

  it("cancelled: the test company is deleted and a new round trip can be started", async () => {
    const eng = await atStep3();
    await eng.as.confirmations.startCallbackCheck({ engagementId: eng.engagementId });
    const [row] = await checkRows(eng.engagementId);
    const cancelled = await eng.as.confirmations.cancelCallbackCheck({ engagementId: eng.engagementId });
    expect(cancelled).toMatchObject({ status: "cancelled", companyDeleted: true, canStart: true, linkUrl: null });
    expect(await companyStatus(eng.apiKey, row!.companyId!)).toBe(404);
    expect((await support().engagements.get({ engagementId: eng.engagementId })).steps.find((s) => s.number === 3)!.state).not.toBe("done");
    expect((await trpcError(eng.as.confirmations.cancelCallbackCheck({ engagementId: eng.engagementId }))).message).toBe("No round trip is open.");
    const next = await eng.as.confirmations.startCallbackCheck({ engagementId: eng.engagementId });
    expect(next.status).toBe("waiting");
    expect(next.id).not.toBe(row!.id);
  });

  it("a test company deleted on the service meanwhile ends the round trip as failed, saying so", async () => {
    const eng = await atStep3();
    await eng.as.confirmations.startCallbackCheck({ engagementId: eng.engagementId });
    const [row] = await checkRows(eng.engagementId);
    await fetch(`${bed.sb.url}/companies/${row!.companyId}`, { method: "DELETE", headers: { authorization: basicAuth(eng.apiKey) } });
    const ended = await eng.as.confirmations.refreshCallbackCheck({ engagementId: eng.engagementId });
    expect(ended).toMatchObject({ status: "failed", canStart: true });
    expect(ended.error).toMatchObject({ status: 404 });
  });
});

describe("where no round trip can be made", () => {
  it("the service's refusal is kept whole (status, error text, correlationId) and the customer may still confirm by hand, unproven", async () => {
    const eng = await atStep3({ target: { apiKey: "not-a-key-of-this-sandbox" } });
    const failed = await eng.as.confirmations.startCallbackCheck({ engagementId: eng.engagementId });
    expect(failed.status).toBe("failed");
    expect(failed.error?.status).toBe(401);
    expect(failed.error?.text).toBeTruthy();
    expect(failed.error?.correlationId).toBeTruthy();
    expect(failed.companyId).toBeNull();
    expect(await auditCount(eng.engagementId, "callback_check.ended")).toBe(1);

    await eng.as.confirmations.callbackUrl({ engagementId: eng.engagementId });
    const step3 = (await support().engagements.get({ engagementId: eng.engagementId })).steps.find((s) => s.number === 3)!;
    expect(step3.state).toBe("done");
    const flow = ZStepEvidence.parse(step3.evidence).flow;
    expect(flow).toMatchObject({ kind: "callback_confirmed" });
    expect(flow && "proof" in flow ? flow.proof : undefined).toBeUndefined();
  });

  it("without a target: not offered, with the reason, and a start is refused with nothing written", async () => {
    const eng = await atStep3();
    await bed.t.db.update(engagements).set({ serviceTargetId: null }).where(eq(engagements.id, eng.engagementId));
    const view = await eng.as.confirmations.callbackCheck({ engagementId: eng.engagementId });
    expect(view.canStart).toBe(false);
    expect(view.cannotStart).toMatch(/no service target/);
    const error = await trpcError(eng.as.confirmations.startCallbackCheck({ engagementId: eng.engagementId }));
    expect(error.code).toBe("PRECONDITION_FAILED");
    expect(await checkRows(eng.engagementId)).toHaveLength(0);
  });

  it("another organisation's customer sees nothing of it", async () => {
    const eng = await atStep3();
    const other = as(bed.people.customerB);
    expect((await trpcError(other.confirmations.startCallbackCheck({ engagementId: eng.engagementId }))).code).toBe("NOT_FOUND");
    expect((await trpcError(other.confirmations.callbackCheck({ engagementId: eng.engagementId }))).code).toBe("NOT_FOUND");
    expect(await checkRows(eng.engagementId)).toHaveLength(0);
  });
});
