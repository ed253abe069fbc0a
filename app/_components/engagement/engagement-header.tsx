import Link from "next/link";
import type { ReactNode } from "react";
import { CopyButton, PageHeader, ProgressBar } from "@/app/_components/ui";
import type { EngagementDetail } from "@/app/_lib/types";
import { StatusBadge } from "./status-badge";

/** The head of an engagement page, the same in the console and the portal: reference, status, what it is. */
export function EngagementHeader({
  engagement: e,
  back,
  description,
  actions,
}: {
  engagement: Pick<EngagementDetail, "reference" | "status">;
  back: { href: string; label: string };
  description: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <PageHeader
      eyebrow={
        <Link href={back.href} className="hover:underline">
          ← {back.label}
        </Link>
      }
      title={<span className="font-mono">{e.reference}</span>}
      titleAside={
        <>
          <CopyButton value={e.reference} label="engagement reference" />
          <StatusBadge status={e.status} />
        </>
      }
      description={description}
      actions={actions}
    />
  );
}

/** "n of 6 steps done" as a bar: the one measure of progress, counted by the server. */
export function StepsDoneBar({ stepsDone, size, className }: { stepsDone: number; size?: "sm"; className?: string }) {
  return <ProgressBar label="Steps done" value={stepsDone} max={6} valueText={`${stepsDone} of 6 steps done`} size={size} className={className} />;
}
