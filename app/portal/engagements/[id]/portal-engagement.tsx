"use client";
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { EngagementHeader, StepsDoneBar } from "@/app/_components/engagement/engagement-header";
import { EngagementWorkspace } from "@/app/_components/engagement/engagement-workspace";
import { Waiting } from "@/app/_components/engagement/waiting";
import { Card, CopyableId, Notice, ProgressBar } from "@/app/_components/ui";
import { formatDateTime, statusLabel } from "@/app/_lib/labels";
import { useAnnouncement } from "@/app/_components/use-announcement";
import { toFormError } from "@/app/_lib/trpc-error";
import { useTRPC } from "@/app/_trpc/react";
import { StepPanel } from "./steps/step-panel";

/** A customer's view of one engagement: its steps one at a time, what they do there, and what happened. */
export function PortalEngagementView({ engagementId }: { engagementId: string }) {
  const trpc = useTRPC();
  const engagement = useQuery(trpc.engagements.get.queryOptions({ engagementId }));
  const { announce, region } = useAnnouncement();
  const e = engagement.data;
  if (!e) {
    return engagement.error ? <Notice tone="error">{toFormError(engagement.error).message}</Notice> : <ProgressBar label="Loading engagement" />;
  }
  return (
    <EngagementWorkspace
      engagement={e}
      viewer="portal"
      header={<EngagementHeader engagement={e} back={{ href: "/portal", label: "Your engagements" }} description={`${e.platform.name} migration for ${e.organization.name}`} />}
      details={
        <Card aria-label="Engagement details" bodyClassName="p-0">
          <dl className="grid grid-cols-2 gap-x-4 gap-y-3 px-4 py-3 text-sm sm:px-5 lg:grid-cols-5">
            <Term term="Your Ferry contact">
              <span className="block">{e.owner.name}</span>
              <a className="block break-all text-indigo-700 underline" href={`mailto:${e.owner.email}`}>
                {e.owner.email}
              </a>
            </Term>
            <Term term="Status">{statusLabel(e.status)}</Term>
            <Term term="Whose move" wide>
              <Waiting party={e.waiting.party} since={e.waiting.since} viewer="portal" />
            </Term>
            <Term term="Progress">
              <span className="block">{e.stepsDone} of 6 steps done</span>
              <StepsDoneBar stepsDone={e.stepsDone} size="sm" className="mt-1.5 w-32" />
            </Term>
            <Term term="Callback URL for your OAuth app">
              {e.platform.callbackUrl ? <CopyableId value={e.platform.callbackUrl} label="callback URL" truncate /> : "—"}
            </Term>
          </dl>
          <p className="border-t border-slate-100 px-4 py-2 text-xs text-slate-600 sm:px-5">
            Opened {formatDateTime(e.createdAt)} · last change {formatDateTime(e.updatedAt)}
          </p>
        </Card>
      }
      announcements={region}
      renderStep={(step) => ({ panel: <StepPanel engagement={e} step={step} announce={announce} /> })}
      activityTitle="Activity"
    />
  );
}

/** One detail; `wide` takes the whole row on a phone (a value that keeps to one line, such as "since …"). */
function Term({ term, children, wide = false }: { term: string; children: ReactNode; wide?: boolean }) {
  return (
    <div className={wide ? "col-span-2 min-w-0 sm:col-span-1" : "min-w-0"}>
      <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase">{term}</dt>
      <dd className="mt-1 text-slate-900">{children}</dd>
    </div>
  );
}
