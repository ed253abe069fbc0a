/**
 * The reconciliation of an engagement's migration: how many companies the accepted token file
 * supplied, how far they got on the service, and where each one is now. One query makes it
 * (server/migration/reconciliation.ts) and every surface shows it as it is — the bulk panel, the
 * handover card, the timeline's bulk and handover entries, the handover report and its CSV — so
 * the numbers agree wherever they are read. The single-company test's company is one of them,
 * and named.
 *
 * Browser-safe (zod only): the screens import the schema and the words.
 */
import { z } from "zod";
import { companiesText } from "../words";
import { MIGRATION_ITEM_STATES } from "./states";

export const ZReconciliation = z.object({
  /** The real companies of the accepted token file (rehearsal companies never count). */
  supplied: z.number().int(),
  // How far they got; each is part of the one before.
  /** With a company on the service. */
  created: z.number().int(),
  /** Whose connection was Linked at some point (authorized with the file's tokens, or reconnected). */
  linked: z.number().int(),
  /** Whose sync finished with every data type Complete or NotSupported. */
  synced: z.number().int(),
  // Where each one is now; these add up to `supplied`.
  verified: z.number().int(),
  /** In the end customer's hands, with the service's Link URL (or awaiting fresh tokens). */
  reconnectPending: z.number().int(),
  /** The platform refused the tokens and nothing has been done about it yet. */
  reauthRequired: z.number().int(),
  setAside: z.number().int(),
  failed: z.number().int(),
  /** Not in a final state yet (waiting for or in a run). */
  inProgress: z.number().int(),
  /** The company the single-company test migrated (step 5): one of the above, named. */
  pilot: z.object({ name: z.string(), state: z.enum(MIGRATION_ITEM_STATES) }).nullable(),
});
export type Reconciliation = z.infer<typeof ZReconciliation>;

type Count = Exclude<keyof Reconciliation, "pilot">;

/** The counts in order with their labels: how far the companies got, then where they are now. */
export const RECONCILIATION_LINES: readonly { key: Count; label: string; part: "progress" | "outcome" }[] = [
  { key: "supplied", label: "Supplied", part: "progress" },
  { key: "created", label: "Created on the service", part: "progress" },
  { key: "linked", label: "Linked", part: "progress" },
  { key: "synced", label: "Synced", part: "progress" },
  { key: "verified", label: "Verified", part: "outcome" },
  { key: "reconnectPending", label: "Reconnection pending", part: "outcome" },
  { key: "reauthRequired", label: "Reauthorization required", part: "outcome" },
  { key: "setAside", label: "Set aside", part: "outcome" },
  { key: "failed", label: "Failed", part: "outcome" },
  { key: "inProgress", label: "Still on their way", part: "outcome" },
];

/** The companies in a final state (everything supplied but those still on their way). */
export const finishedOf = (r: Reconciliation): number => r.supplied - r.inProgress;

const n = (v: number) => v.toLocaleString("en-GB");

/** "the single-company test's company, Harbour Books Ltd, included" — or null without one. */
export function pilotInWords(r: Reconciliation): string | null {
  return r.pilot ? `the single-company test's company, ${r.pilot.name}, included` : null;
}

/**
 * The reconciliation in one sentence, for the timeline, mail, announcements and the report:
 * "25 companies supplied: 25 created on the service, 23 linked, 23 synced; 23 verified, 2
 * reauthorization required (the single-company test's company, Harbour Books Ltd, included)".
 * Outcomes other than verified are left out when none.
 */
export function reconciliationInWords(r: Reconciliation): string {
  const outcomes = RECONCILIATION_LINES.filter((l) => l.part === "outcome" && (l.key === "verified" || r[l.key] > 0)).map(
    (l) => `${n(r[l.key])} ${l.label.toLowerCase()}`,
  );
  const pilot = pilotInWords(r);
  return `${companiesText(r.supplied)} supplied: ${n(r.created)} created on the service, ${n(r.linked)} linked, ${n(r.synced)} synced; ${outcomes.join(", ")}${pilot ? ` (${pilot})` : ""}`;
}
