import { cn } from "@/app/_components/ui";
import { RECONCILIATION_LINES, type Reconciliation } from "@/core/migration/reconciliation";

const n = (v: number) => v.toLocaleString("en-GB");

function Count({ label, value, strong }: { label: string; value: number; strong?: boolean }) {
  return (
    <div className={cn("rounded-md border border-slate-200 px-3 py-2", strong && "bg-slate-50")}>
      <dt className="text-xs text-slate-600">{label}</dt>
      <dd className="text-lg font-semibold text-slate-900 tabular-nums">{n(value)}</dd>
    </div>
  );
}

/**
 * The engagement's reconciliation, the same on every surface (bulk panel, handover card, printable
 * report): how far the supplied companies got on the service, where each one is now, and the
 * single-company test's company named among them. Outcomes that hold no company are shown only
 * when they are final states (a zero there is an answer), "still on their way" only while some are.
 */
export function ReconciliationView({ reconciliation: r, className }: { reconciliation: Reconciliation; className?: string }) {
  const progress = RECONCILIATION_LINES.filter((l) => l.part === "progress");
  const outcomes = RECONCILIATION_LINES.filter((l) => l.part === "outcome" && (l.key !== "inProgress" || r.inProgress > 0));
  return (
    <section aria-label="Reconciliation" className={cn("space-y-2", className)}>
      <dl aria-label="How far the companies got" className="grid grid-cols-2 gap-2 text-sm sm:grid-cols-4 print:grid-cols-4">
        {progress.map((l) => (
          <Count key={l.key} label={l.label} value={r[l.key]} strong={l.key === "supplied"} />
        ))}
      </dl>
      <dl aria-label="Where the companies are now" className="grid grid-cols-2 gap-2 text-sm sm:grid-cols-3 lg:grid-cols-6 print:grid-cols-6">
        {outcomes.map((l) => (
          <Count key={l.key} label={l.label} value={r[l.key]} strong={l.key === "verified"} />
        ))}
      </dl>
      {r.pilot ? (
        <p className="text-sm text-slate-700">
          Counted among them: <span className="font-medium">{r.pilot.name}</span>, migrated by the single-company test.
        </p>
      ) : null}
    </section>
  );
}
