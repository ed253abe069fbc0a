import { cn } from "@/app/_components/ui";
import { FINAL_ITEM_STATES, MIGRATION_ITEM_STATES } from "@/core/migration/states";
import { itemStateLabel } from "@/core/migration/state-words";

const FINAL = new Set<string>(FINAL_ITEM_STATES);

/**
 * Companies per state: the four final states always, and any other state that still holds
 * companies (before the report, while some are on their way).
 */
export function HandoverCounts({ counts, total, label, className }: { counts: Record<string, number>; total: number; label: string; className?: string }) {
  const shown = MIGRATION_ITEM_STATES.filter((s) => FINAL.has(s) || (counts[s] ?? 0) > 0);
  return (
    <dl aria-label={label} className={cn("grid grid-cols-2 gap-2 text-sm sm:grid-cols-5 print:grid-cols-5", className)}>
      <div className="rounded-md border border-slate-200 bg-slate-50 px-3 py-2">
        <dt className="text-xs text-slate-600">Companies</dt>
        <dd className="text-lg font-semibold text-slate-900">{total.toLocaleString("en-GB")}</dd>
      </div>
      {shown.map((s) => (
        <div key={s} className="rounded-md border border-slate-200 px-3 py-2">
          <dt className="text-xs text-slate-600">{itemStateLabel(s)}</dt>
          <dd className="text-lg font-semibold text-slate-900">{(counts[s] ?? 0).toLocaleString("en-GB")}</dd>
        </div>
      ))}
    </dl>
  );
}
