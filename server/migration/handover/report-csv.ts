/** The whole handover report as a CSV download, streamed in chunks so 100,000 companies never sit in memory at once. */
import { readSteps, type Database } from "@/db/database";
import { AppError } from "@/server/errors";
import { assertOrganization } from "@/server/engagements/access";
import { findEngagement } from "@/server/engagements/engagement-repository";
import type { Actor } from "@/core/accounts/actor";
import { findHandover, reportItemsAfter } from "./handover-repository";
import { reportCsvChunk, reportFileName, toReportRow } from "./report";
import { reconcile } from "../reconciliation";
import type { ReconnectLinks } from "../watch/reconnect-link";

/** Rows read and written per chunk. */
const CHUNK = 1000;

/**
 * The report's file name and its CSV body (a stream). Refused like the engagement itself for
 * another organisation's customer, and until the report is produced.
 */
export async function handoverReportCsv(database: Database, links: ReconnectLinks, actor: Actor, engagementId: string): Promise<{ fileName: string; body: ReadableStream<Uint8Array> }> {
  const eng = await readSteps(database, function* (tx) {
    const found = yield* findEngagement(tx, engagementId);
    if (!found) throw new AppError("NOT_FOUND", "No engagement with that id.");
    assertOrganization(actor, found.organizationId);
    if (!(yield* findHandover(tx, found.id))) throw new AppError("PRECONDITION_FAILED", "The handover report has not been produced yet.");
    return found;
  });
  const encoder = new TextEncoder();
  let after: { position: number; id: string } | null = null;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      // Each chunk is its own query (keyset on the file position), so no statement or transaction
      // stays open between pulls.
      let chunk: string;
      let count: number;
      if (after === null) {
        // The reconciliation is read with the first chunk's rows from one snapshot (repeatable
        // read on PostgreSQL; SQLite's transaction sees one state anyway), so the two agree.
        const first = await database.transaction(
          function* (tx) {
            return { reconciliation: yield* reconcile(tx, eng.id), items: yield* reportItemsAfter(tx, eng.id, null, CHUNK) };
          },
          { isolation: "repeatable read" },
        );
        chunk = reportCsvChunk(first.items.map((i) => toReportRow(i, links, eng.platformKey)), { reconciliation: first.reconciliation, reference: eng.reference });
        count = first.items.length;
        if (count) after = first.items[count - 1]!;
      } else {
        const from: { position: number; id: string } = after;
        const items = await readSteps(database, (tx) => reportItemsAfter(tx, eng.id, from, CHUNK));
        chunk = items.length ? reportCsvChunk(items.map((i) => toReportRow(i, links, eng.platformKey)), null) : "";
        count = items.length;
        if (count) after = items[count - 1]!;
      }
      if (chunk) controller.enqueue(encoder.encode(chunk));
      if (count < CHUNK) controller.close();
    },
  });
  return { fileName: reportFileName(eng.reference), body };
}
