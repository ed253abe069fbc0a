"use client";
import { Button, Notice } from "@/app/_components/ui";
import { formatDateTime } from "@/app/_lib/labels";
import type { WindowPlan } from "@/app/_lib/types";
import { plural } from "@/core/words";

type Decline = WindowPlan["declines"][number];

/**
 * The customer's declines of proposed windows, newest first: the one support has not answered
 * yet as a notice (why, and the times that would suit, which support can take into a proposal),
 * earlier ones folded away under it.
 */
export function DeclineList({
  declines,
  viewer,
  onPropose,
}: {
  declines: readonly Decline[];
  viewer: "console" | "portal";
  /** Support takes the suggested times into the proposal form (offered only while it may propose). */
  onPropose?: (windows: { startsAt: Date; endsAt: Date }[]) => void;
}) {
  if (!declines.length) return null;
  const newestFirst = [...declines].reverse();
  const open = newestFirst.find((d) => !d.answered) ?? null;
  const earlier = newestFirst.filter((d) => d !== open);
  return (
    <div className="space-y-2">
      {open ? (
        <Notice
          tone={viewer === "console" ? "warning" : "info"}
          title={viewer === "console" ? `${open.declinedBy.name} declined the proposed ${windowsWord(open.windows)}` : `You declined the proposed ${windowsWord(open.windows)}`}
        >
          <DeclineBody decline={open} viewer={viewer} />
          {viewer === "console" && onPropose && open.suggested.length ? (
            <Button size="sm" variant="secondary" className="mt-2" onClick={() => onPropose(open.suggested)}>
              Propose {plural(open.suggested.length, { one: "this time", other: "these times" })}
            </Button>
          ) : null}
        </Notice>
      ) : null}
      {earlier.length ? (
        <details className="rounded-md border border-slate-200 px-3 py-2 text-sm text-slate-700">
          <summary className="cursor-pointer font-medium text-slate-800">
            {plural(earlier.length, { one: "An earlier decline", other: `${earlier.length} earlier declines` })}
          </summary>
          <ol className="mt-2 space-y-3">
            {earlier.map((d) => (
              <li key={d.id}>
                <p className="font-medium text-slate-800">
                  {d.declinedBy.name} declined {d.windows} proposed {windowsWord(d.windows)}
                </p>
                <DeclineBody decline={d} viewer={viewer} />
              </li>
            ))}
          </ol>
        </details>
      ) : null}
    </div>
  );
}

function windowsWord(n: number): string {
  return plural(n, { one: "window", other: "windows" });
}

function DeclineBody({ decline: d, viewer }: { decline: Decline; viewer: "console" | "portal" }) {
  return (
    <div className="space-y-1 text-sm">
      <p className="text-slate-600">{formatDateTime(d.declinedAt)}</p>
      <p>
        <span className="font-medium">Why: </span>
        <span className="break-words whitespace-pre-wrap">{d.reason}</span>
      </p>
      {d.suggested.length ? (
        <div>
          <p className="font-medium">{viewer === "console" ? "Times that would suit them (UTC):" : "Times you suggested (UTC):"}</p>
          <ul className="list-disc pl-5">
            {d.suggested.map((w) => (
              <li key={`${w.startsAt.getTime()}-${w.endsAt.getTime()}`}>
                {formatDateTime(w.startsAt)} to {formatDateTime(w.endsAt)}
              </li>
            ))}
          </ul>
        </div>
      ) : (
        <p>{viewer === "console" ? "They suggested no times." : "You suggested no times."}</p>
      )}
      {!d.answered ? (
        <p className="text-slate-600">{viewer === "console" ? "Propose new windows below; the customer is mailed them." : "Ferry support proposes new windows; you are mailed when they do."}</p>
      ) : null}
    </div>
  );
}
