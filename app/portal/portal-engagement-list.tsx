"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ReferenceLink } from "@/app/_components/engagement/reference-link";
import { StatusBadge } from "@/app/_components/engagement/status-badge";
import { StepProgress } from "@/app/_components/engagement/step-progress";
import { Waiting } from "@/app/_components/engagement/waiting";
import { EmptyState, Notice, Pagination, ProgressBar, ResponsiveTable, type ResponsiveColumn } from "@/app/_components/ui";
import { formatDateTime } from "@/app/_lib/labels";
import { toFormError } from "@/app/_lib/trpc-error";
import type { RouterOutputs } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { PAGE_SIZE } from "@/server/api/routers/shared.types";

type Listed = RouterOutputs["engagements"]["list"]["items"][number];

/** The customer's engagements; on a phone each becomes a card headed by its reference. */
const COLUMNS: ResponsiveColumn<Listed>[] = [
  { label: "Reference", title: true, className: "whitespace-nowrap", cell: (e) => <ReferenceLink href={`/portal/engagements/${e.id}`} reference={e.reference} /> },
  { label: "Platform", cell: (e) => e.platformName },
  { label: "Status", cell: (e) => <StatusBadge status={e.status} /> },
  { label: "Current step", cell: (e) => <StepProgress currentStep={e.currentStep} stepsDone={e.stepsDone} /> },
  { label: "Whose move", cell: (e) => <Waiting party={e.waitingOn} since={e.waitingSince} viewer="portal" /> },
  { label: "Your Ferry contact", cell: (e) => e.ownerName },
  { label: "Updated", className: "whitespace-nowrap text-slate-600", cell: (e) => formatDateTime(e.updatedAt) },
];

export function PortalEngagementList() {
  const trpc = useTRPC();
  const [page, setPage] = useState(1);
  const list = useQuery({ ...trpc.engagements.list.queryOptions({ page, pageSize: PAGE_SIZE }), placeholderData: keepPreviousData });

  if (list.error) return <Notice tone="error">{toFormError(list.error).message}</Notice>;
  if (!list.data) return <ProgressBar label="Loading engagements" />;
  if (!list.data.items.length) {
    return (
      <EmptyState title="No engagements yet">
        When Ferry support opens a migration for your organisation, it appears here. Ask Ferry for one below.
      </EmptyState>
    );
  }
  return (
    <div className="space-y-4">
      <ResponsiveTable caption="Your engagements" captionVisible={false} columns={COLUMNS} rows={list.data.items} rowKey={(e) => e.id} />
      <Pagination page={list.data.page} pageSize={list.data.pageSize} total={list.data.total} noun={{ one: "engagement", other: "engagements" }} onPageChange={setPage} />
    </div>
  );
}
