/**
 * The single-company test (pilot) and its rehearsal as the worker carries them out (a RunWork of
 * engine/work.ts): the test's session opened on the engagement's service target (run-session.ts:
 * the target checked for this engagement, its key decrypted and audited, a client on it), or a
 * rehearsal's on the built-in sandbox with a client and simulated companies of its own; the one
 * company driven through the pipeline under its lease; then the run finished with its checks and
 * advice (finish-test-run.ts). A run that cannot start (no target, no sandbox) ends failed in words.
 */
import { readSteps } from "@/db/database";
import { createControlClient } from "@/server/sandbox/controls/control-client";
import { createServiceClient, type ServiceClient } from "@/server/service-client";
import { targetAddressPolicy } from "@/server/targets/network";
import { findItem } from "../engine/item-repository";
import { takeItemLease, type HeldLeases } from "../engine/leases";
import { DEFAULT_PIPELINE_POLICY, type StoredError } from "../engine/pipeline";
import type { RunRow } from "../engine/run-repository";
import { openRunSession, runEngagement, type RunEngagement } from "../engine/run-session";
import { driveItem } from "../engine/runner";
import { RunAbandoned } from "../engine/worker";
import type { EngineContext, RunWork } from "../engine/work";
import { finishTestRun } from "./finish-test-run";
import { prepareRehearsal, SandboxUnavailableError } from "./rehearsal";

/** How a test starts: its client and company, or the failure it ends with before any call. */
type TestStart = RunEngagement & ({ ok: true; client: ServiceClient; itemId: string } | { ok: false; itemId: string | null; failure: StoredError });

const storedFailure = (kind: StoredError["kind"], error: string): StoredError => ({
  operation: "run",
  kind,
  status: null,
  service: null,
  error,
  correlationId: null,
  at: new Date().toISOString(),
});

/** Finishes the run with its company as stored now (or none) and the failure it ended with; logs the result. */
async function finish(ctx: EngineContext, run: RunRow, start: RunEngagement, itemId: string | null, failure: StoredError | null): Promise<void> {
  const item = itemId ? ((await readSteps(ctx.database, (tx) => findItem(tx, itemId))) ?? null) : null;
  const outcome = await finishTestRun(ctx.database, { run, owner: ctx.owner, item, failure });
  if (!outcome) throw new RunAbandoned("lease_lost");
  ctx.log(`${run.kind === "rehearsal" ? "rehearsal" : "single-company test"} ${run.id} on ${start.engagement.reference}: ${outcome.result}${outcome.advice ? ` (${outcome.advice.code})` : ""}`);
}

/** Carries out a single-company test or a rehearsal. */
async function carryOutTest(ctx: EngineContext, run: RunRow, signal: AbortSignal, leases: HeldLeases): Promise<void> {
  const start = run.kind === "rehearsal" ? await openRehearsal(ctx, run, signal) : await openPilot(ctx, run);
  if (!start.ok) return finish(ctx, run, start, start.itemId, start.failure);
  const { client, itemId, engagement, platform } = start;
  const token = await takeItemLease(ctx.database, { itemId, runId: run.id, owner: ctx.owner, leaseMs: ctx.leaseMs, signal });
  leases.holdItem(itemId, token);
  const result = await driveItem(
    {
      database: ctx.database,
      ring: ctx.ring,
      client,
      runId: run.id,
      owner: ctx.owner,
      engagement,
      platform,
      rehearsal: run.kind === "rehearsal",
      // A test shows every data type's records: one read each, for one company.
      policy: { ...(ctx.policy ?? DEFAULT_PIPELINE_POLICY), countEveryDataType: true },
      signal,
      beforeStore: ctx.beforeStore,
    },
    itemId,
    token,
  );
  await finish(ctx, run, start, itemId, result.runStop);
}

/** The single-company test's session on the engagement's service target, or the failure it ends with at once. */
async function openPilot(ctx: EngineContext, run: RunRow): Promise<TestStart> {
  const itemId = run.itemId;
  if (!itemId) throw new Error(`Run ${run.id} names no company.`);
  const session = await openRunSession({
    database: ctx.database,
    ring: ctx.ring,
    run,
    purpose: (reference) => `call the service for the single-company test on ${reference}`,
    connect: (target, apiKey) => createServiceClient({ ...ctx.client, baseUrl: target.baseUrl, apiKey, addresses: targetAddressPolicy(target) }),
  });
  const { engagement, platform } = session;
  if (!session.ok) {
    const text = session.refusal.kind === "no_target" ? "The run has no service target." : session.refusal.reason;
    return { ok: false, engagement, platform, itemId, failure: storedFailure("no_service_target", text) };
  }
  return { ok: true, engagement, platform, itemId, client: session.connection };
}

/** A rehearsal's client on the built-in sandbox and the chosen company's twin (made on the way), or the failure it ends with at once. */
async function openRehearsal(ctx: EngineContext, run: RunRow, signal: AbortSignal): Promise<TestStart> {
  const { engagement, platform } = await runEngagement(ctx.database, run);
  const unavailable = (text: string): TestStart => ({ ok: false, engagement, platform, itemId: null, failure: storedFailure("sandbox_unavailable", text) });
  if (!ctx.sandbox) return unavailable("SANDBOX_URL and SANDBOX_ADMIN_TOKEN are not set for the worker.");
  try {
    const prepared = await prepareRehearsal({ database: ctx.database, ring: ctx.ring, run, owner: ctx.owner, control: createControlClient(ctx.sandbox), sandboxUrl: ctx.sandbox.url, engagement, signal });
    // The built-in sandbox at SANDBOX_URL, which Ferry's own configuration names (it may be on another machine of the network).
    const client = createServiceClient({ ...ctx.client, baseUrl: ctx.sandbox.url, apiKey: prepared.apiKey, addresses: "any" });
    return { ok: true, engagement, platform, itemId: prepared.itemId, client };
  } catch (error) {
    if (error instanceof SandboxUnavailableError) return unavailable(error.message);
    throw error;
  }
}

/** The single-company test and its rehearsal, for the worker. */
export const testRunWork: RunWork = {
  kinds: ["pilot", "rehearsal"],
  carryOut: carryOutTest,
  async fail(ctx, run, message) {
    const itemId = run.itemId;
    const item = itemId ? ((await readSteps(ctx.database, (tx) => findItem(tx, itemId))) ?? null) : null;
    await finishTestRun(ctx.database, { run, owner: ctx.owner, item, failure: storedFailure("internal", message) });
  },
};
