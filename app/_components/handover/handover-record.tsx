import Link from "next/link";
import { buttonClasses } from "@/app/_components/ui";
import { formatDateTime } from "@/app/_lib/labels";
import { purgeTriggerWords } from "@/core/migration/state-words";
import { companiesText as companies } from "@/core/words";
import type { HandoverView } from "@/core/migration/handover-schemas";

/** The CSV download of an engagement's report (a route handler; the browser saves the file). */
export const handoverCsvHref = (engagementId: string) => `/api/engagements/${engagementId}/handover-report`;

/**
 * Where a produced report stands — who produced it, whether it was acknowledged, what became of
 * the credentials — with its printable page and CSV download.
 */
export function HandoverRecord({
  view,
  printHref,
}: {
  view: HandoverView & { handover: NonNullable<HandoverView["handover"]> };
  /** The printable report page, or null on that page itself. */
  printHref: string | null;
}) {
  const h = view.handover;
  return (
    <div className="space-y-3">
      <dl className="grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
        <dt className="font-medium text-slate-700">Report</dt>
        <dd>
          Produced {formatDateTime(h.confirmedAt)}
          {h.confirmedBy ? ` by ${h.confirmedBy.name}` : ""} for {companies(h.total)}.
        </dd>
        <dt className="font-medium text-slate-700">Acknowledgement</dt>
        <dd>
          {h.acknowledgedAt ? (
            <>
              {h.acknowledgementNote ? "Recorded" : "Acknowledged"} {formatDateTime(h.acknowledgedAt)}
              {h.acknowledgedBy ? ` by ${h.acknowledgedBy.name}` : ""}
              {h.acknowledgementNote ? ` for the customer: ${h.acknowledgementNote}` : "."}
            </>
          ) : (
            "Awaiting the customer's acknowledgement."
          )}
        </dd>
        <dt className="font-medium text-slate-700">Credentials</dt>
        <dd>
          {h.purgedAt && h.purgeTrigger ? (
            <>
              Purged {formatDateTime(h.purgedAt)}, {purgeTriggerWords(h.purgeTrigger)}: no token or client secret is kept.
            </>
          ) : (
            <>
              Held encrypted for {companies(view.credentialsHeld)}; deleted when the report is acknowledged, or automatically on{" "}
              {formatDateTime(h.automaticPurgeAt)}.
            </>
          )}
        </dd>
      </dl>
      <div className="flex flex-wrap gap-2 print:hidden">
        <a href={handoverCsvHref(view.engagementId)} download className={buttonClasses({ variant: "secondary", size: "sm" })}>
          Download report (CSV)
        </a>
        {printHref ? (
          <Link href={printHref} className={buttonClasses({ variant: "secondary", size: "sm" })}>
            Open printable report
          </Link>
        ) : null}
      </div>
    </div>
  );
}
