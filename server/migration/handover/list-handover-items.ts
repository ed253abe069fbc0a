/** One page of the handover report's companies, filtered and searched on the server. */
import { readSteps, type Database } from "@/db/database";
import { assertCanView } from "@/server/engagements/access";
import { findEngagement } from "@/server/engagements/engagement-repository";
import type { Actor } from "@/core/accounts/actor";
import type { MigrationItemState } from "@/core/migration/states";
import { assertReportReadable } from "./get-handover";
import { pageOfReportItems } from "./handover-repository";
import { toReportRow } from "./report";
import type { ReconnectLinks } from "../watch/reconnect-link";
import type { HandoverItemsPage } from "@/core/migration/handover-schemas";

/** The report's rows in file order (customers: once the report is produced). */
export async function listHandoverItems(
  database: Database,
  links: ReconnectLinks,
  actor: Actor,
  input: { engagementId: string; state?: MigrationItemState; search?: string; page: number; pageSize: number },
): Promise<HandoverItemsPage> {
  const { rows, total, platformKey } = await readSteps(database, function* (tx) {
    yield* assertCanView(tx, actor, input.engagementId);
    yield* assertReportReadable(tx, actor, input.engagementId);
    const eng = yield* findEngagement(tx, input.engagementId);
    return { ...(yield* pageOfReportItems(tx, input)), platformKey: eng?.platformKey ?? "" };
  });
  return { items: rows.map((r) => toReportRow(r, links, platformKey)), total, page: input.page, pageSize: input.pageSize };
}
