import type { EstimateView } from "@/app/_lib/types";
import { companiesText } from "@/core/words";

const BOTTLENECK: Record<EstimateView["bottleneck"], string> = {
  rate_limit: "the service's rate limit",
  daily_quota: "the service's daily quota",
  sync_time: "the time each company takes to sync",
};

/** The duration estimate with its formula and every input, so both sides can check the arithmetic. */
export function EstimatePanel({ estimate }: { estimate: EstimateView }) {
  return (
    <div className="space-y-3 rounded-md border border-slate-200 bg-slate-50 p-4 text-sm" data-testid="estimate">
      <p>
        <span className="font-semibold">Estimated duration: {estimate.total}</span> for {companiesText(estimate.companies)}, set by {BOTTLENECK[estimate.bottleneck]}.
      </p>
      <details>
        <summary className="cursor-pointer font-medium text-indigo-800">How this is estimated</summary>
        <dl className="mt-2 grid gap-x-4 gap-y-1 sm:grid-cols-[max-content_1fr]">
          {estimate.inputs.map((i) => (
            <div key={i.label} className="contents">
              <dt className="font-medium text-slate-700">{i.label}</dt>
              <dd className="text-slate-800">{i.value}</dd>
            </div>
          ))}
        </dl>
        <p className="mt-2 text-slate-700">
          <span className="font-medium">Formula:</span> <code className="text-xs">{estimate.formula}</code>
        </p>
        <p className="mt-1 text-slate-700">
          <span className="font-medium">With these numbers:</span> <code className="text-xs">{estimate.worked}</code>
        </p>
        <p className="mt-1 text-xs text-slate-600">Limits from {estimate.limitsSource}.</p>
      </details>
    </div>
  );
}
