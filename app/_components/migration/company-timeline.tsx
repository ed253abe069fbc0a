"use client";
import { useQuery } from "@tanstack/react-query";
import { Badge, CopyableId, Notice, ProgressBar } from "@/app/_components/ui";
import { formatDateTime } from "@/app/_lib/labels";
import { toFormError } from "@/app/_lib/trpc-error";
import { useTRPC } from "@/app/_trpc/react";
import type { TimelineEntry, TimelineSource } from "@/core/migration/company-timeline";
import { countOf } from "@/core/words";

const SOURCE_LABELS: Record<TimelineSource, string> = { call: "Call", person: "Person", system: "Ferry", service: "Service event" };
const SOURCE_TONES = { call: "neutral", person: "info", system: "neutral", service: "warning" } as const;

function Entry({ e, name }: { e: TimelineEntry; name: string }) {
  const c = e.call;
  return (
    <li className="grid gap-x-3 gap-y-1 border-b border-slate-100 py-2 last:border-b-0 sm:grid-cols-[auto_minmax(0,1fr)]">
      <span className="pt-0.5 text-xs whitespace-nowrap text-slate-600 tabular-nums">
        {formatDateTime(e.at)}
        {e.until ? <span className="sm:block"> to {formatDateTime(e.until)}</span> : null}
      </span>
      <div className="min-w-0 space-y-1 text-sm">
        <p className="break-words text-slate-900">
          <Badge tone={SOURCE_TONES[e.source]} className="mr-2">
            {SOURCE_LABELS[e.source]}
          </Badge>
          {e.text}
          {e.actor ? <span className="text-slate-600"> — {e.actor}</span> : null}
        </p>
        {c ? (
          <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-slate-700">
            <Badge tone={!c.ok || c.refused ? "danger" : "success"}>{c.status ?? "no answer"}</Badge>
            <span className="break-all">
              {c.method} {c.path}
            </span>
            {c.answer ? <span className={c.refused ? "text-red-800" : undefined}>{c.answer}</span> : null}
            {c.errorText ? <span className="block w-full text-red-800">{c.errorText}</span> : null}
            {c.correlationId ? <CopyableId value={c.correlationId} label={`correlationId of ${name}'s call: ${e.text}`} short /> : null}
          </div>
        ) : null}
      </div>
    </li>
  );
}

/**
 * One company's timeline in one list, oldest first: every call Ferry made for it with the service's
 * answer and correlationId, what people and Ferry did to it, its fresh tokens and their review.
 */
export function CompanyTimelineList({ engagementId, itemId, name }: { engagementId: string; itemId: string; name: string }) {
  const trpc = useTRPC();
  const timeline = useQuery(trpc.bulk.timeline.queryOptions({ engagementId, itemId }));
  if (timeline.error) return <Notice tone="error">{toFormError(timeline.error).message}</Notice>;
  if (!timeline.data) return <ProgressBar label={`Loading ${name}'s timeline`} size="sm" />;
  const t = timeline.data;
  return (
    <>
      {t.olderCallsLeftOut ? <p className="text-xs text-slate-600">{countOf(t.olderCallsLeftOut, "older call is", "older calls are")} not shown.</p> : null}
      {t.entries.length ? (
        <ol aria-label={`Timeline of ${name}, oldest first`} className="divide-slate-100">
          {t.entries.map((e, i) => (
            <Entry key={`${e.at.toISOString()}-${i}`} e={e} name={name} />
          ))}
        </ol>
      ) : (
        <p className="text-sm text-slate-600">Nothing has happened to this company yet.</p>
      )}
    </>
  );
}
