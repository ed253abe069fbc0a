/** One page of the handover report's companies, filtered and searched on the server. */
import type { Db } from "@/db/client";
import { runSync } from "@/db/database";
import { assertCanView } from "@/server/engagements/access";
import type { Actor } from "@/core/accounts/actor";
import type { MigrationItemState } from "@/core/migration/states";
import { assertReportReadable } from "./get-handover";
import { pageOfReportItems } from "./handover-repository";
import { toReportRow } from "./report";
import type { HandoverItemsPage } from "@/core/migration/handover-schemas";

/** The report's rows in file order (customers: once the report is produced). */
export function listHandoverItems(
  db: Db,
  actor: Actor,
  input: { engagementId: string; state?: MigrationItemState; search?: string; page: number; pageSize: number },
): HandoverItemsPage {
  runSync(assertCanView(db, actor, input.engagementId));
  assertReportReadable(db, actor, input.engagementId);
  const { rows, total } = runSync(pageOfReportItems(db, input));
  return { items: rows.map(toReportRow), total, page: input.page, pageSize: input.pageSize };
}
