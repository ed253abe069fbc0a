import Link from "next/link";
import { Notice } from "@/app/_components/ui";
import { formatDateTime } from "@/app/_lib/labels";
import type { EngagementDetail } from "@/app/_lib/types";
import { companiesText as companies, countOf } from "@/core/words";
import { ReconciliationView } from "@/app/_components/migration/reconciliation-view";
import { reconciliationInWords } from "@/core/migration/reconciliation";
import type { HandoverItemsPage, HandoverView } from "@/core/migration/handover-schemas";
import { HandoverRecord } from "./handover-record";
import { HandoverTable } from "./handover-table";
import { PrintButton } from "./print-button";

/**
 * The printable handover report (staff and customer pages alike): the engagement, the
 * reconciliation first, where the handover stands, and every company of this part in a table. A
 * report of more companies than a part holds prints in parts; the CSV holds them all.
 */
export function HandoverReport(props: {
  engagement: EngagementDetail;
  view: HandoverView;
  page: HandoverItemsPage | null;
  backHref: string;
  /** The printable page of another part. */
  partHref: (part: number) => string;
}) {
  const { engagement: e, view, page } = props;
  const back = (
    <Link href={props.backHref} className="text-sm font-medium text-indigo-700 underline print:hidden">
      Back to {e.reference}
    </Link>
  );
  if (!view.handover || !page) {
    return (
      <div className="space-y-4">
        {back}
        <h1 className="text-2xl font-semibold text-slate-900">Handover report · {e.reference}</h1>
        <Notice tone="info">The handover report has not been produced yet.</Notice>
      </div>
    );
  }
  const parts = Math.max(1, Math.ceil(page.total / page.pageSize));
  const first = (page.page - 1) * page.pageSize + 1;
  const last = Math.min(page.total, page.page * page.pageSize);
  return (
    <article aria-labelledby="report-title" className="space-y-6 print:space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-3 print:hidden">
        {back}
        <PrintButton />
      </div>
      <header className="space-y-1">
        <p className="text-sm text-slate-600">Ferry · managed token migration</p>
        <h1 id="report-title" className="text-2xl font-semibold text-slate-900">
          Handover report · {e.reference}
        </h1>
        <p className="text-sm text-slate-700">
          {e.organization.name} · {e.platform.name} · into {e.serviceTarget ? `${e.serviceTarget.name} (${e.serviceTarget.baseUrl})` : "the service"} · printed{" "}
          {formatDateTime(new Date())}
        </p>
      </header>
      <div className="space-y-2">
        <h2 className="text-lg font-semibold text-slate-900">Reconciliation</h2>
        <p className="text-sm text-slate-700">{reconciliationInWords(view.reconciliation)}.</p>
        <ReconciliationView reconciliation={view.reconciliation} />
      </div>
      <HandoverRecord view={{ ...view, handover: view.handover }} printHref={null} />
      {parts > 1 ? (
        <nav aria-label="Report parts" className="space-y-2 text-sm">
          <p>
            This report lists {companies(page.total)}; this page shows companies {first.toLocaleString("en-GB")}–{last.toLocaleString("en-GB")} (part{" "}
            {page.page} of {parts}). The CSV holds them all.
          </p>
          <ul className="flex flex-wrap gap-2 print:hidden">
            {Array.from({ length: parts }, (_, i) => i + 1).map((n) => (
              <li key={n}>
                <Link href={props.partHref(n)} aria-current={n === page.page ? "page" : undefined} className="rounded px-2 py-1 underline aria-[current=page]:bg-indigo-600 aria-[current=page]:text-white">
                  Part {n}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      {page.items.length === 0 ? (
        <Notice tone="info">
          There is no part {page.page}: the report has {countOf(parts, "part", "parts")}.{" "}
          <Link href={props.partHref(1)} className="underline">
            Go to part 1
          </Link>
        </Notice>
      ) : (
        <HandoverTable rows={page.items} caption={parts > 1 ? `Companies ${first}–${last} of ${page.total}` : "Every company of the engagement"} captionVisible />
      )}
    </article>
  );
}

/** The part asked for in the page's query (?part=2), 1 when absent or not a page number. */
export function reportPart(value: string | string[] | undefined): number {
  const n = Number(Array.isArray(value) ? value[0] : value);
  return Number.isInteger(n) && n >= 1 && n <= 100_000 ? n : 1;
}
