"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ReferenceLink } from "@/app/_components/engagement/reference-link";
import { StatusBadge } from "@/app/_components/engagement/status-badge";
import { StepProgress } from "@/app/_components/engagement/step-progress";
import { Waiting } from "@/app/_components/engagement/waiting";
import { EmptyState, Notice, Pagination, ProgressBar, Table, TBody, Td, Th, THead, Tr } from "@/app/_components/ui";
import { formatDateTime } from "@/app/_lib/labels";
import { toFormError } from "@/app/_lib/trpc-error";
import { useTRPC } from "@/app/_trpc/react";
import { PAGE_SIZE } from "@/server/api/routers/shared.types";

export function PortalEngagementList() {
  const trpc = useTRPC();
  const [page, setPage] = useState(1);
  const list = useQuery({ ...trpc.engagements.list.queryOptions({ page, pageSize: PAGE_SIZE }), placeholderData: keepPreviousData });

  if (list.error) return <Notice tone="error">{toFormError(list.error).message}</Notice>;
  if (!list.data) return <ProgressBar label="Loading engagements" />;
  if (!list.data.items.length) {
    return <EmptyState title="No engagements yet">When Ferry support opens a migration for your organisation, it appears here.</EmptyState>;
  }
  return (
    <div className="space-y-4">
      <Table caption="Your engagements">
        <THead>
          <Tr>
            <Th>Reference</Th>
            <Th>Platform</Th>
            <Th>Status</Th>
            <Th>Current step</Th>
            <Th>Whose move</Th>
            <Th>Your Ferry contact</Th>
            <Th>Updated</Th>
          </Tr>
        </THead>
        <TBody>
          {list.data.items.map((e) => (
            <Tr key={e.id}>
              <Td className="whitespace-nowrap">
                <ReferenceLink href={`/portal/engagements/${e.id}`} reference={e.reference} />
              </Td>
              <Td>{e.platformName}</Td>
              <Td>
                <StatusBadge status={e.status} />
              </Td>
              <Td>
                <StepProgress currentStep={e.currentStep} stepsDone={e.stepsDone} />
              </Td>
              <Td>
                <Waiting party={e.waitingOn} since={e.waitingSince} viewer="portal" />
              </Td>
              <Td>{e.ownerName}</Td>
              <Td className="whitespace-nowrap text-slate-600">{formatDateTime(e.updatedAt)}</Td>
            </Tr>
          ))}
        </TBody>
      </Table>
      <Pagination page={list.data.page} pageSize={list.data.pageSize} total={list.data.total} noun="engagements" onPageChange={setPage} />
    </div>
  );
}
