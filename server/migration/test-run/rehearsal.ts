/**
 * A rehearsal's set-up on the built-in sandbox: a sandbox client of its own and one simulated
 * tenant per real migration item (same platform, the item's `records` hint), stored as rehearsal
 * items (`rehearsalRunId`) with the tenants' credentials sealed like real ones. The single-company
 * test then runs on the twin of the chosen company. Nothing here reads the real target, the real
 * items' credentials or the customer's tokens.
 *
 * Resumable: the client's key is stored (encrypted) as soon as it exists, and tenants are made in
 * batches stored as they are made, so a worker that takes the run over carries on where it stopped.
 * Every write is fenced by the worker's lease on the run: its transaction locks the run's row and
 * checks it first, so a worker that lost the run stores no key, twin or progress beside the new one.
 */
import { and, asc, eq } from "drizzle-orm";
import type { Database, Steps, Tx } from "@/db/database";
import { migrationItems } from "@/db/schema";
import type { SandboxControl } from "@/server/sandbox/controls/control-client";
import { writeAudit } from "@/server/security/audit";
import { decryptSecret, encryptSecret, type KeyRing } from "@/server/security/secrets";
import { insertMigrationItems, sealMigrationItems } from "../../items/insert-items";
import { attachItemToRun, LeaseLostError, platformOf } from "../engine/item-repository";
import { realItems, rehearsalItems } from "../../items/item-scope";
import { lockRun, updateRunProgress, type RunRow } from "../engine/run-repository";
import type { TestRunOutcome } from "./test-run-report";

/** Tenants made at once, and per stored batch. */
const BATCH = 25;
/** The sandbox's largest tenant. */
const MAX_RECORDS = 100_000;

/** The set-up could not use the sandbox (its controls refused or did not answer). */
export class SandboxUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SandboxUnavailableError";
  }
}

const keyContext = (runId: string) => `migration_run:${runId}:sandbox_api_key`;

/**
 * The run's row, locked, while this worker still holds it (else LeaseLostError: the transaction
 * rolls back and nothing of it is stored). Every write of the set-up starts with it, so a worker
 * that lost the run (cancelled, or taken over) never adds twins or progress beside the new owner.
 */
function* heldRun(tx: Tx, runId: string, owner: string, token: string): Steps<RunRow> {
  const run = yield* lockRun(tx, runId);
  if (!run || run.status !== "running" || run.leaseOwner !== owner || run.leaseToken !== token) throw new LeaseLostError(`rehearsal ${runId}`);
  return run;
}

/** Stores the set-up's progress in the run's outcome (read and written back with the row locked), fenced by the lease. */
function* storeProgress(
  tx: Tx,
  params: { runId: string; owner: string; token: string; now: Date; progress: Pick<TestRunOutcome, "sandboxUrl" | "preparation">; itemId?: string; sandbox?: { clientId: string; apiKeyCipher: string } },
): Steps<void> {
  const run = yield* heldRun(tx, params.runId, params.owner, params.token);
  const outcome: TestRunOutcome = { ...((run.outcome ?? {}) as TestRunOutcome), ...params.progress };
  const stored = yield* updateRunProgress(tx, { runId: params.runId, owner: params.owner, token: params.token, now: params.now, outcome, ...(params.itemId ? { itemId: params.itemId } : {}), ...(params.sandbox ? { sandbox: params.sandbox } : {}) });
  if (!stored) throw new LeaseLostError(`rehearsal ${params.runId}`);
}

/** The rehearsal's sandbox API key: made (and stored encrypted) on first use, decrypted (audited) after. */
async function sandboxKey(params: { database: Database; ring: KeyRing; run: RunRow; owner: string; control: SandboxControl; reference: string; organizationId: string }): Promise<string> {
  const { database, ring, run, owner } = params;
  if (run.sandboxApiKeyCipher) {
    const key = decryptSecret(ring, run.sandboxApiKeyCipher, keyContext(run.id));
    await database.transaction(
      (tx) =>
        writeAudit(tx, {
          actor: null,
          action: "migration.sandbox_key_decrypted",
          targetId: run.id,
          engagementId: run.engagementId,
          organizationId: params.organizationId,
          after: { purpose: "carry on with the rehearsal on the sandbox" },
        }),
      { isolation: "read committed" },
    );
    return key;
  }
  const { clientId, apiKey } = await params.control.createClient({ plan: "paid", name: `Ferry rehearsal ${params.reference}` });
  // Sealed before the transaction: the body may run again on PostgreSQL, and the key is made once.
  const sandbox = { clientId, apiKeyCipher: encryptSecret(ring, apiKey, keyContext(run.id)) };
  await database.transaction((tx) => storeProgress(tx, { runId: run.id, owner, token: run.leaseToken ?? "", now: new Date(), progress: {}, sandbox }), { isolation: "read committed" });
  return apiKey;
}

/**
 * Makes (or finishes making) the rehearsal's simulated companies and attaches the chosen one's
 * twin to the run. Returns the sandbox API key (in memory only) and the twin's item id.
 */
export async function prepareRehearsal(params: {
  database: Database;
  ring: KeyRing;
  run: RunRow;
  owner: string;
  control: SandboxControl;
  sandboxUrl: string;
  engagement: { id: string; reference: string; organizationId: string; platformKey: string };
  signal?: AbortSignal;
}): Promise<{ apiKey: string; itemId: string }> {
  const { database, ring, owner, control, engagement } = params;
  const runId = params.run.id;
  // The fencing token of this worker's claim of the run: every write of the set-up names it.
  const token = params.run.leaseToken ?? "";
  const platform = platformOf(engagement.platformKey);
  const guard = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      params.signal?.throwIfAborted();
      if (error instanceof LeaseLostError) throw error;
      throw new SandboxUnavailableError(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const apiKey = await guard("creating the rehearsal's sandbox client", () => sandboxKey({ ...params, reference: engagement.reference, organizationId: engagement.organizationId }));

  const real = await database.db
    .select({ id: migrationItems.id, position: migrationItems.position, sourceRef: migrationItems.sourceRef, name: migrationItems.name, externalRef: migrationItems.externalRef, recordsHint: migrationItems.recordsHint, oldCounts: migrationItems.oldCounts, submissionId: migrationItems.submissionId })
    .from(migrationItems)
    .where(realItems(engagement.id))
    .orderBy(asc(migrationItems.position));
  const made = new Set((await database.db.select({ position: migrationItems.position }).from(migrationItems).where(rehearsalItems(runId))).map((r) => r.position));
  const missing = real.filter((r) => !made.has(r.position));
  const progress = (created: number, done: boolean) => ({ sandboxUrl: params.sandboxUrl, preparation: { total: real.length, created, done } });
  await database.transaction((tx) => storeProgress(tx, { runId, owner, token, now: new Date(), progress: progress(made.size, false) }), { isolation: "read committed" });

  let created = made.size;
  for (let start = 0; start < missing.length; start += BATCH) {
    params.signal?.throwIfAborted();
    const batch = missing.slice(start, start + BATCH);
    const tenants = await guard("creating simulated tenants", () =>
      Promise.all(
        batch.map((item) =>
          control.createTenant(platform.key, { name: item.name, records: Math.min(MAX_RECORDS, Math.max(1, item.recordsHint ?? 50)) }),
        ),
      ),
    );
    const submissionId = batch[0]!.submissionId;
    const at = new Date();
    // Sealed before the transaction (a body PostgreSQL may run again must not encrypt or make ids).
    const twins = sealMigrationItems({
      ring,
      platform,
      engagementId: engagement.id,
      submissionId,
      rehearsalRunId: runId,
      at,
      rows: batch.map((item, i) => ({
        line: 0,
        position: item.position,
        sourceRef: item.sourceRef,
        name: item.name,
        externalRef: item.externalRef,
        records: item.recordsHint,
        oldCounts: item.oldCounts,
        credentials: tenants[i]!.credentials,
      })),
    });
    // The twins and the progress in one transaction, fenced by the lease (the run's row locked first).
    await database.transaction(
      function* (tx) {
        yield* storeProgress(tx, { runId, owner, token, now: at, progress: progress(created + batch.length, false) });
        yield* insertMigrationItems(tx, twins);
      },
      { isolation: "read committed" },
    );
    created += batch.length;
  }

  const simulatesId = ((params.run.outcome ?? {}) as TestRunOutcome).simulates?.itemId;
  const simulated = real.find((r) => r.id === simulatesId) ?? real[0];
  if (!simulated) throw new Error("The engagement has no companies to rehearse with.");
  const [twin] = await database.db
    .select({ id: migrationItems.id })
    .from(migrationItems)
    .where(and(rehearsalItems(runId), eq(migrationItems.position, simulated.position)))
    .limit(1);
  if (!twin) throw new Error(`No simulated twin of ${simulated.name} was made.`);
  await database.transaction(
    function* (tx) {
      const current = yield* heldRun(tx, runId, owner, token);
      const now = new Date();
      if (current.itemId !== twin.id) yield* attachItemToRun(tx, { itemId: twin.id, runId, now });
      yield* storeProgress(tx, { runId, owner, token, now, progress: progress(created, true), itemId: twin.id });
    },
    { isolation: "read committed" },
  );
  return { apiKey, itemId: twin.id };
}
