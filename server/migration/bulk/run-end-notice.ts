/**
 * What the customer is told when a bulk run ends with companies in their hands: those that could
 * not be migrated with the tokens given wait for their end customers to reconnect (or for fresh
 * tokens), and every day before the customer hears of it is a day those companies do not sync.
 * When nothing waits on the customer there is nothing to tell yet: the handover report's mail
 * follows. Pure: the run's end queues it in its own transaction.
 */
import type { Reconciliation } from "@/core/migration/reconciliation";
import { companiesText, plural } from "@/core/words";
import type { FlowNotice } from "@/server/engagements/waiting/notify";

export function bulkRunEndNotice(r: Pick<Reconciliation, "supplied" | "verified" | "reconnectPending">): FlowNotice | null {
  const waiting = r.reconnectPending;
  if (waiting === 0) return null;
  const word = (one: string, other: string) => plural(waiting, { one, other });
  return {
    to: "customer",
    subject: `The bulk migration has finished: ${companiesText(waiting)} ${word("waits", "wait")} for ${word("its end customer", "their end customers")}`,
    text: [
      `The bulk migration has finished: ${companiesText(r.verified)} of ${r.supplied.toLocaleString("en-GB")} migrated and verified.`,
      `${companiesText(waiting)} could not be migrated with the tokens given and ${word("waits for its end customer", "wait for their end customers")} to connect again.`,
      `Send ${word("it its", "each its")} reconnect link (download ${word("it", "them")} as a CSV in Ferry, step 6), or send fresh tokens for ${word("it", "them")} in a supplementary file.`,
      "Ferry support will send the handover report next.",
    ].join(" "),
  };
}
