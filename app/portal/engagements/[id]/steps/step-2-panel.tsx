"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "@/app/_components/confirm-dialog";
import { useFlowInvalidation } from "@/app/_components/engagement/use-flow-invalidation";
import { EstimatePanel } from "@/app/_components/intake/estimate-panel";
import { WindowTable } from "@/app/_components/intake/window-table";
import { Button, Notice, ProgressBar } from "@/app/_components/ui";
import type { Announce } from "@/app/_components/use-announcement";
import { formatDateTime } from "@/app/_lib/labels";
import { toFormError } from "@/app/_lib/trpc-error";
import type { EngagementDetail, StepView, WindowView } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { plural } from "@/core/words";

/** Step 2 in the portal: the estimate, the windows support proposed (accept one), the invites. */
export function PortalStep2Panel({ engagement, step, announce }: { engagement: EngagementDetail; step: StepView; announce: Announce }) {
  const trpc = useTRPC();
  const plan = useQuery({ ...trpc.windows.plan.queryOptions({ engagementId: engagement.id }), enabled: step.displayState !== "locked" });
  const invalidate = useFlowInvalidation(engagement.id);
  const [accepting, setAccepting] = useState<WindowView | null>(null);
  const accept = useMutation(trpc.windows.accept.mutationOptions());
  if (step.displayState === "locked") return null;
  const p = plan.data;
  if (!p) return plan.error ? <Notice tone="error">{toFormError(plan.error).message}</Notice> : <ProgressBar label="Loading the windows" size="sm" />;
  const open = p.windows.filter((w) => w.status === "proposed" || w.status === "accepted");
  return (
    <div className="space-y-4">
      {p.estimate ? <EstimatePanel estimate={p.estimate} /> : null}
      {p.agreed ? (
        <Notice tone="success" title="Agreed window">
          {formatDateTime(p.agreed.startsAt)} to {formatDateTime(p.agreed.endsAt)}.
        </Notice>
      ) : open.length ? (
        <p className="text-sm text-slate-700">Ferry support proposed {plural(open.length, { one: "this window", other: "these windows" })}. Accept the one that suits you.</p>
      ) : (
        <p className="text-sm text-slate-700">Ferry support will propose a migration window once your token file is accepted.</p>
      )}
      <WindowTable
        engagementId={engagement.id}
        windows={open}
        actions={(w) =>
          w.status === "proposed" && p.accept.allowed ? (
            <Button
              size="sm"
              onClick={() => {
                accept.reset();
                setAccepting(w);
              }}
            >
              Accept this window<span className="sr-only"> starting {formatDateTime(w.startsAt)}</span>
            </Button>
          ) : null
        }
      />
      {accepting ? (
        <ConfirmDialog
          title="Accept this migration window?"
          description={`${formatDateTime(accepting.startsAt)} to ${formatDateTime(accepting.endsAt)}.`}
          confirmLabel="Accept this window"
          cancelLabel="Not yet"
          pending={accept.isPending}
          error={accept.error}
          onClose={() => setAccepting(null)}
          confirm={async () => {
            await accept.mutateAsync({ engagementId: engagement.id, windowId: accepting.id });
            await invalidate();
            setAccepting(null);
            announce({ tone: "success", text: "You accepted the migration window. Step 2 is done." });
          }}
        >
          <p>Ferry support migrates your companies in this window; any other window proposed is no longer offered.</p>
          <p>
            To move it afterwards, contact {p.contact.name}
            {p.contact.email ? ` at ${p.contact.email}` : ""}: support reschedules it with you.
          </p>
        </ConfirmDialog>
      ) : null}
      <p className="text-xs text-slate-600">
        To move the window, contact {p.contact.name}
        {p.contact.email ? (
          <>
            {" "}
            at{" "}
            <a className="text-indigo-700 underline" href={`mailto:${p.contact.email}`}>
              {p.contact.email}
            </a>
          </>
        ) : null}
        .
      </p>
    </div>
  );
}
