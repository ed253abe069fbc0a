/** The whole handover report as a CSV download, streamed in chunks so 100,000 companies never sit in memory at once. */
import { runSync } from "@/db/database";
import type { Db } from "@/db/client";
import { AppError } from "@/server/errors";
import { assertOrganization } from "@/server/engagements/access";
import { loadForChange } from "@/server/engagements/engagement-repository";
import type { Actor } from "@/core/accounts/actor";
import { findHandover, reportItemsAfter } from "./handover-repository";
import { reportCsvChunk, reportFileName, toReportRow } from "./report";
import { reconcile } from "../reconciliation";

/** Rows read and written per chunk. */
const CHUNK = 1000;

/**
 * The report's file name and its CSV body (a stream). Refused like the engagement itself for
 * another organisation's customer, and until the report is produced.
 */
export function handoverReportCsv(db: Db, actor: Actor, engagementId: string): { fileName: string; body: ReadableStream<Uint8Array> } {
  const { eng } = runSync(loadForChange(db, engagementId));
  assertOrganization(actor, eng.organizationId);
  if (!runSync(findHandover(db, eng.id))) throw new AppError("PRECONDITION_FAILED", "The handover report has not been produced yet.");
  const encoder = new TextEncoder();
  let after: { position: number; id: string } | null = null;
  let started = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      // Each chunk is its own query (keyset on the file position), so no statement stays open
      // on the shared connection between pulls.
      // The reconciliation is read with the first chunk's rows, so the two agree.
      const head = started ? null : { reconciliation: runSync(reconcile(db, eng.id)), reference: eng.reference };
      const items = runSync(reportItemsAfter(db, eng.id, after, CHUNK));
      if (items.length || head) controller.enqueue(encoder.encode(reportCsvChunk(items.map(toReportRow), head)));
      started = true;
      if (items.length < CHUNK) controller.close();
      else after = items[items.length - 1]!;
    },
  });
  return { fileName: reportFileName(eng.reference), body };
}
