/**
 * What the worker carries out, as the kinds of work register it (worker.ts is only the loop):
 * - a RunWork claims runs of its kinds from the app database, carries each out to its end under the
 *   worker's lease, says how a fault of Ferry's own ends one, and may help with another worker's
 *   run (a bulk run's companies);
 * - a PeriodicWork is looked at every so often beside the runs (the hypercare watch; scheduled
 *   work to come), each instance taking what is due under leases of its own.
 * server/migration/migration-worker.ts puts Ferry's kinds together; the engine imports none of them.
 *
 * Every kind is handed one EngineContext: the worker's database, keys, identity, lease, and the
 * options its service clients, pipeline and mail take.
 */
import type { Database } from "@/db/database";
import type { RunKind } from "@/core/migration/states";
import type { NotifyConfig } from "@/server/engagements/waiting/notify";
import type { KeyRing } from "@/server/security/secrets";
import type { BudgetStore } from "@/server/service-client/budget-store";
import type { ServiceClientOptions } from "@/server/service-client";
import type { HeldLeases } from "./leases";
import type { PipelineCall, PipelinePolicy } from "./pipeline";
import type { RunRow } from "./run-repository";

/** Options of every service client the worker makes (timeouts, retries, a fetch). */
export type ClientOptions = Partial<Omit<ServiceClientOptions, "baseUrl" | "apiKey">>;

/** What every kind of work is carried out with. */
export type EngineContext = {
  readonly database: Database;
  readonly ring: KeyRing;
  /** This worker's id: the owner of every lease it takes. */
  readonly owner: string;
  /** How long a lease lasts without renewal; renewed every quarter of it. */
  readonly leaseMs: number;
  /** The pipeline's policy (its polling and retries; tests set them short); the default when undefined. */
  readonly policy: PipelinePolicy | undefined;
  readonly client: ClientOptions;
  /** Tests: called with each answer before it is stored (throw to stop as a crash would). */
  readonly beforeStore: ((call: PipelineCall) => void) | undefined;
  /** Mail after the worker's changes (companies handed to their end customers, the watch's findings); none when null. */
  readonly notify: NotifyConfig | null;
  /** The targets' rate budgets shared with every worker, and the machine this one's requests come from; null: its pacers learn the limits alone. */
  readonly budget: { store: BudgetStore; machineId: string } | null;
  /** The built-in sandbox's controls (rehearsals, its clock for the watch); null when not set. */
  readonly sandbox: { url: string; adminToken: string } | null;
  /** One line each, already safe to log (logSafe). */
  readonly log: (line: string) => void;
};

/** A kind of run the worker claims and carries out. */
export type RunWork = {
  readonly kinds: readonly RunKind[];
  /**
   * Carries out a run this worker claimed to its end, or until `signal` aborts (a stop, a lost
   * lease). `run.leaseToken` is its claim's fencing token, which every write to the run names; the
   * items it claims are held (renewed) through `leases`, each by its own claim's token.
   */
  carryOut(ctx: EngineContext, run: RunRow, signal: AbortSignal, leases: HeldLeases): Promise<void>;
  /** A fault of Ferry's own (not a service answer) ended the run: record it, in words, on the run. */
  fail(ctx: EngineContext, run: RunRow, message: string): Promise<void>;
  /** Another worker's run this kind can help with, and how (a bulk run's companies). */
  readonly help?: {
    find(ctx: EngineContext): Promise<RunRow | null>;
    /** `takeOver` takes the run's lease over when its coordinator's has run out (its takeover's fencing token when it did, else null). */
    carryOut(ctx: EngineContext, run: RunRow, signal: AbortSignal, leases: HeldLeases, takeOver: () => Promise<string | null>): Promise<void>;
  };
};

/** Work looked at every `everyMs` (with jitter) beside the runs, until the worker stops. */
export type PeriodicWork = {
  readonly name: string;
  readonly everyMs: number;
  /**
   * One worker at a time across every worker and machine: the loop ticks only while this worker
   * holds the work's lease (periodic-lease.ts), which lapses three ticks (at least the worker's run
   * lease) after its holder dies, and is let go when it stops cleanly.
   */
  readonly exclusive?: boolean;
  /** Its instance in one worker: `tick` does what is due now (answers how much, for tests and logs); `close` lets go of what it holds. */
  start(ctx: EngineContext): { tick(): Promise<number>; close(): Promise<void> };
};
