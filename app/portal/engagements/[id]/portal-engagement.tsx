"use client";
import { useQuery } from "@tanstack/react-query";
import { Checklist } from "@/app/_components/engagement/checklist";
import { EngagementHeader, StepsDoneBar } from "@/app/_components/engagement/engagement-header";
import { Waiting } from "@/app/_components/engagement/waiting";
import { Timeline } from "@/app/_components/engagement/timeline";
import { Card, CopyButton, Notice, ProgressBar } from "@/app/_components/ui";
import { formatDateTime, statusLabel } from "@/app/_lib/labels";
import { useAnnouncement } from "@/app/_components/use-announcement";
import { toFormError } from "@/app/_lib/trpc-error";
import { useTRPC } from "@/app/_trpc/react";
import { StepPanel } from "./steps/step-panel";

/** A customer's read-only view of one engagement: the six steps and what happened. */
export function PortalEngagementView({ engagementId }: { engagementId: string }) {
  const trpc = useTRPC();
  const engagement = useQuery(trpc.engagements.get.queryOptions({ engagementId }));
  const timeline = useQuery(trpc.engagements.timeline.queryOptions({ engagementId }));
  const { announce, region } = useAnnouncement();
  const e = engagement.data;
  if (!e) {
    return engagement.error ? <Notice tone="error">{toFormError(engagement.error).message}</Notice> : <ProgressBar label="Loading engagement" />;
  }
  return (
    <div className="space-y-8">
      <EngagementHeader engagement={e} back={{ href: "/portal", label: "Your engagements" }} description={`${e.platform.name} migration for ${e.organization.name}`} />
      <Card aria-label="Engagement details">
        <dl className="grid gap-4 text-sm sm:grid-cols-2 lg:grid-cols-5">
          <div>
            <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase">Your Ferry contact</dt>
            <dd className="mt-1">
              {e.owner.name} · <a className="text-indigo-700 underline" href={`mailto:${e.owner.email}`}>{e.owner.email}</a>
            </dd>
          </div>
          <div>
            <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase">Status</dt>
            <dd className="mt-1">{statusLabel(e.status)}</dd>
          </div>
          <div>
            <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase">Callback URL for your OAuth app</dt>
            <dd className="mt-1 inline-flex max-w-full items-center gap-1">
              {e.platform.callbackUrl ? (
                <>
                  <code className="truncate rounded bg-slate-100 px-1.5 py-0.5 text-xs">{e.platform.callbackUrl}</code>
                  <CopyButton value={e.platform.callbackUrl} label="callback URL" />
                </>
              ) : (
                "—"
              )}
            </dd>
          </div>
          <div>
            <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase">Whose move</dt>
            <dd className="mt-1">
              <Waiting party={e.waiting.party} since={e.waiting.since} next={e.waiting.party === "customer" ? e.waiting.next : undefined} viewer="portal" />
            </dd>
          </div>
          <div>
            <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase">Progress</dt>
            <dd className="mt-1 space-y-1">
              <span className="block">{e.stepsDone} of 6 steps done</span>
              <StepsDoneBar stepsDone={e.stepsDone} size="sm" className="w-40" />
            </dd>
          </div>
        </dl>
        <p className="mt-4 text-xs text-slate-500">Opened {formatDateTime(e.createdAt)} · last change {formatDateTime(e.updatedAt)}</p>
      </Card>
      <div className="grid grid-cols-1 gap-8 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <section aria-labelledby="checklist-title" className="space-y-4">
          <h2 id="checklist-title" className="text-lg font-semibold text-slate-900">
            Checklist
          </h2>
          {region}
          <Checklist steps={e.steps} renderPanel={(step) => <StepPanel engagement={e} step={step} announce={announce} />} />
        </section>
        <section aria-labelledby="timeline-title" className="space-y-4">
          <h2 id="timeline-title" className="text-lg font-semibold text-slate-900">
            Activity
          </h2>
          {timeline.data ? <Timeline entries={timeline.data} /> : <ProgressBar label="Loading activity" size="sm" />}
        </section>
      </div>
    </div>
  );
}
