/**
 * A rehearsal's set-up on the built-in sandbox: a sandbox client of its own and one simulated
 * tenant per real migration item (same platform, the item's `records` hint), stored as rehearsal
 * items (`rehearsalRunId`) with the tenants' credentials sealed like real ones. The single-company
 * test then runs on the twin of the chosen company. Nothing here reads the real target, the real
 * items' credentials or the customer's tokens.
 *
 * Resumable: the client's key is stored (encrypted) as soon as it exists, and tenants are made in
 * batches stored as they are made, so a worker that takes the run over carries on where it stopped.
 */
import { and, asc, eq } from "drizzle-orm";
import { runSync } from "@/db/database";
import type { Db } from "@/db/client";
import { migrationItems } from "@/db/schema";
import type { SandboxControl } from "@/server/sandbox/controls/control-client";
import { recordAudit } from "@/server/security/audit";
import { decryptSecret, encryptSecret, type KeyRing } from "@/server/security/secrets";
import { insertMigrationItems } from "../../items/insert-items";
import { attachItemToRun, LeaseLostError, platformOf } from "../engine/item-repository";
import { realItems, rehearsalItems } from "../../items/item-scope";
import { findRun, updateRunProgress, type RunRow } from "../engine/run-repository";
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

/** The rehearsal's sandbox API key: made (and stored encrypted) on first use, decrypted (audited) after. */
async function sandboxKey(params: { db: Db; ring: KeyRing; run: RunRow; owner: string; control: SandboxControl; reference: string; organizationId: string }): Promise<string> {
  const { db, ring, run } = params;
  if (run.sandboxApiKeyCipher) {
    const key = decryptSecret(ring, run.sandboxApiKeyCipher, keyContext(run.id));
    recordAudit(db, {
      actor: null,
      action: "migration.sandbox_key_decrypted",
      targetId: run.id,
      engagementId: run.engagementId,
      organizationId: params.organizationId,
      after: { purpose: "carry on with the rehearsal on the sandbox" },
    });
    return key;
  }
  const { clientId, apiKey } = await params.control.createClient({ plan: "paid", name: `Ferry rehearsal ${params.reference}` });
  const outcome = (run.outcome ?? {}) as TestRunOutcome;
  if (!runSync(updateRunProgress(db, { runId: run.id, owner: params.owner, now: new Date(), outcome, sandbox: { clientId, apiKeyCipher: encryptSecret(ring, apiKey, keyContext(run.id)) } }))) {
    throw new LeaseLostError(`rehearsal ${params.run.id}`);
  }
  return apiKey;
}

/**
 * Makes (or finishes making) the rehearsal's simulated companies and attaches the chosen one's
 * twin to the run. Returns the sandbox API key (in memory only) and the twin's item id.
 */
export async function prepareRehearsal(params: {
  db: Db;
  ring: KeyRing;
  run: RunRow;
  owner: string;
  control: SandboxControl;
  sandboxUrl: string;
  engagement: { id: string; reference: string; organizationId: string; platformKey: string };
  signal?: AbortSignal;
}): Promise<{ apiKey: string; itemId: string }> {
  const { db, ring, owner, control, engagement } = params;
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

  const real = db
    .select({ id: migrationItems.id, position: migrationItems.position, sourceRef: migrationItems.sourceRef, name: migrationItems.name, externalRef: migrationItems.externalRef, recordsHint: migrationItems.recordsHint, submissionId: migrationItems.submissionId })
    .from(migrationItems)
    .where(realItems(engagement.id))
    .orderBy(asc(migrationItems.position))
    .all();
  const made = new Set(
    db.select({ position: migrationItems.position }).from(migrationItems).where(rehearsalItems(params.run.id)).all().map((r) => r.position),
  );
  const missing = real.filter((r) => !made.has(r.position));
  const progress = (created: number, done: boolean): TestRunOutcome => ({
    ...((runSync(findRun(db, params.run.id))?.outcome ?? {}) as TestRunOutcome),
    sandboxUrl: params.sandboxUrl,
    preparation: { total: real.length, created, done },
  });
  if (!runSync(updateRunProgress(db, { runId: params.run.id, owner, now: new Date(), outcome: progress(made.size, false) }))) throw new LeaseLostError(`rehearsal ${params.run.id}`);

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
    db.transaction((tx) =>
      runSync(insertMigrationItems(tx, {
        ring,
        platform,
        engagementId: engagement.id,
        submissionId,
        rehearsalRunId: params.run.id,
        at: new Date(),
        rows: batch.map((item, i) => ({
          line: 0,
          position: item.position,
          sourceRef: item.sourceRef,
          name: item.name,
          externalRef: item.externalRef,
          records: item.recordsHint,
          credentials: tenants[i]!.credentials,
        })),
      })),
    );
    created += batch.length;
    if (!runSync(updateRunProgress(db, { runId: params.run.id, owner, now: new Date(), outcome: progress(created, false) }))) throw new LeaseLostError(`rehearsal ${params.run.id}`);
  }

  const outcome = progress(created, true);
  const simulated = real.find((r) => r.id === outcome.simulates?.itemId) ?? real[0];
  if (!simulated) throw new Error("The engagement has no companies to rehearse with.");
  const twin = db
    .select({ id: migrationItems.id })
    .from(migrationItems)
    .where(and(rehearsalItems(params.run.id), eq(migrationItems.position, simulated.position)))
    .get();
  if (!twin) throw new Error(`No simulated twin of ${simulated.name} was made.`);
  db.transaction((tx) => {
    const current = runSync(findRun(tx, params.run.id));
    if (current?.itemId !== twin.id) runSync(attachItemToRun(tx, { itemId: twin.id, runId: params.run.id, now: new Date() }));
    if (!runSync(updateRunProgress(tx, { runId: params.run.id, owner, now: new Date(), outcome, itemId: twin.id }))) throw new LeaseLostError(`rehearsal ${params.run.id}`);
  });
  return { apiKey, itemId: twin.id };
}
