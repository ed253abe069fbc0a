"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { ZHypercareDays } from "@/core/migration/last-mile-schemas";
import { companiesText, countOf, plural } from "@/core/words";
import type { Announce } from "@/app/_components/use-announcement";
import { Badge, Button, buttonClasses, CopyableId, Dialog, Field, Form, Input, Notice, ProgressBar, ResponsiveTable, type ResponsiveColumn } from "@/app/_components/ui";
import { fieldMessage, formMessage, showServerError, useZodForm } from "@/app/_components/ui/use-zod-form";
import { formatDateTime } from "@/app/_lib/labels";
import { toFormError } from "@/app/_lib/trpc-error";
import type { RouterOutputs } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { useFlowInvalidation } from "@/app/_components/engagement/use-flow-invalidation";
import { CompanyTimelineList } from "@/app/_components/migration/company-timeline";

type LastMile = RouterOutputs["lastMile"]["get"];

/** How often the panel reads the watch again while companies wait (a reconnection shows within it). */
const POLL_MS = 5_000;

/**
 * After the bulk run: the companies waiting for their end customers, each with its reconnect link
 * (copy it, or download them all as CSV to send on), and the watch that notices when they come
 * back and, after the handover, checks the migrated connections daily. Support sets the hypercare
 * days and may ask for a check now; the customer reads the same.
 */
export function Reconnections({ engagementId, announce }: { engagementId: string; announce: Announce }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.lastMile.get.queryOptions({ engagementId }, { refetchInterval: (q) => (q.state.data?.watch?.status === "watching" ? POLL_MS : false) }));
  const v = query.data;
  // A company that came back (or dropped) moves the engagement on: whose move, the timeline, the report and the run.
  const moved = v ? `${v.pendingTotal}:${v.reconnected}:${v.watch?.drops ?? 0}:${v.watch?.status ?? ""}` : null;
  const queryClient = useQueryClient();
  const seen = useRef<string | null>(null);
  useEffect(() => {
    if (moved === null) return;
    if (seen.current !== null && seen.current !== moved) {
      const input = { engagementId };
      void Promise.all([
        queryClient.invalidateQueries({ queryKey: trpc.engagements.get.queryKey(input) }),
        queryClient.invalidateQueries({ queryKey: trpc.engagements.timeline.queryKey(input) }),
        queryClient.invalidateQueries({ queryKey: trpc.handover.get.queryKey(input) }),
        queryClient.invalidateQueries({ queryKey: trpc.handover.items.pathKey() }),
        queryClient.invalidateQueries({ queryKey: trpc.bulk.overview.queryKey(input) }),
      ]);
    }
    seen.current = moved;
  }, [moved, engagementId, queryClient, trpc]);
  if (!v) return query.error ? <Notice tone="error">{toFormError(query.error).message}</Notice> : <ProgressBar label="Loading the reconnections" size="sm" />;
  if (!v.watch && v.pendingTotal === 0) return null;
  return (
    <section id="reconnections" aria-labelledby="reconnections-title" className="scroll-mt-24 space-y-4">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="space-y-1">
          <h4 id="reconnections-title" className="text-sm font-semibold text-slate-900">
            Reconnections and hypercare
          </h4>
          <p className="text-sm text-slate-700">
            {v.pendingTotal
              ? `${companiesText(v.pendingTotal)} could not be migrated with the tokens given and ${plural(v.pendingTotal, { one: "waits for its end customer", other: "wait for their end customers" })} to connect again through the service's Link page.`
              : "No company waits for its end customer."}
            {v.reconnected ? ` ${companiesText(v.reconnected)} came back and ${plural(v.reconnected, { one: "was", other: "were" })} verified.` : ""}
          </p>
        </div>
        {v.pendingTotal ? (
          <a href={`/api/engagements/${engagementId}/reconnect-links`} download className={buttonClasses({ variant: "secondary", size: "sm" })}>
            Download the reconnect links (CSV)
          </a>
        ) : null}
      </div>
      {v.controls.markDropsSeen.allowed ? <UnseenDrops engagementId={engagementId} count={v.unseenDrops} announce={announce} /> : null}
      {v.pendingTotal ? <PendingTable engagementId={engagementId} rows={v.pending} total={v.pendingTotal} /> : null}
      {v.watch ? <WatchStatus lastMile={v} /> : null}
      {v.controls.setHypercareDays.allowed || v.controls.checkNow.allowed ? <Controls engagementId={engagementId} lastMile={v} announce={announce} /> : null}
    </section>
  );
}

type PendingRow = LastMile["pending"][number];

function pendingColumns(open: (r: PendingRow) => void): ResponsiveColumn<PendingRow>[] {
  return [
    {
      label: "Company",
      sticky: "start",
      title: true,
      className: "min-w-44",
      cell: (r) => (
        <>
          <span className="block font-medium">{r.name}</span>
          {r.externalRef ? <span className="block text-xs text-slate-500">{r.externalRef}</span> : null}
          {r.since ? <span className="block text-xs whitespace-nowrap text-slate-500">since {formatDateTime(r.since)}</span> : null}
          {r.dropped ? <Badge tone="warning">Dropped after its migration</Badge> : null}
        </>
      ),
    },
    {
      // Ferry's own link: it never goes stale (each open asks the service for a fresh Link URL).
      label: "Reconnect link",
      className: "whitespace-nowrap",
      // On a phone the link and its copy button take the card's width: beside the label they overflow it.
      wide: true,
      cell: (r) => (r.linkUrl ? <CopyableId value={r.linkUrl} label={`reconnect link of ${r.name}`} tail /> : <span className="text-slate-500">Once the company is on the service</span>),
    },
    {
      label: "Opened",
      className: "text-xs whitespace-nowrap text-slate-700",
      cell: (r) => (r.linkOpens ? `${countOf(r.linkOpens, "time", "times")}, last ${formatDateTime(r.linkLastOpenedAt!)}` : <span className="text-slate-500">Not yet</span>),
    },
    { label: "Why", wide: true, className: "min-w-[12rem] text-xs text-slate-700", cell: (r) => r.reason ?? "—" },
    {
      label: "Timeline",
      cell: (r) => (
        <Button variant="secondary" size="sm" onClick={() => open(r)} aria-label={`Details of ${r.name}`}>
          Details
        </Button>
      ),
    },
  ];
}

/** The waiting companies: a table from `sm` up, stacked rows on phones; each row's Details opens its timeline in a drawer. */
function PendingTable({ engagementId, rows, total }: { engagementId: string; rows: LastMile["pending"]; total: number }) {
  const [opened, setOpened] = useState<PendingRow | null>(null);
  return (
    <div className="space-y-2">
      <ResponsiveTable caption="Companies waiting for their end customers" columns={pendingColumns(setOpened)} rows={rows} rowKey={(r) => r.itemId} />
      {total > rows.length ? <p className="text-xs text-slate-600">The first {rows.length} of {total.toLocaleString("en-GB")}; the CSV holds every one.</p> : null}
      {opened ? (
        <Dialog open onClose={() => setOpened(null)} placement="drawer" title={opened.name} description={opened.dropped ? "Dropped after its migration: waiting for its end customer." : "Waiting for its end customer to reconnect it."}>
          <div className="space-y-4 text-sm">
            {opened.reason ? <p className="break-words text-slate-800">{opened.reason}</p> : null}
            <section aria-labelledby={`${opened.itemId}-timeline`} className="space-y-2 border-t border-slate-200 pt-4">
              <h3 id={`${opened.itemId}-timeline`} className="font-semibold text-slate-900">
                Timeline
              </h3>
              <CompanyTimelineList engagementId={engagementId} itemId={opened.itemId} name={opened.name} />
            </section>
          </div>
        </Dialog>
      ) : null}
    </div>
  );
}

function WatchStatus({ lastMile: v }: { lastMile: LastMile }) {
  const w = v.watch!;
  const hypercare = w.hypercareEndsAt
    ? w.status === "ended"
      ? `The hypercare watch ended ${w.endedAt ? formatDateTime(w.endedAt) : ""}.`
      : `Hypercare: every migrated connection is checked daily until ${formatDateTime(w.hypercareEndsAt)} (${countOf(v.hypercareDays, "day", "days")} after the handover).`
    : `Hypercare: for ${countOf(v.hypercareDays, "day", "days")} after the handover report, every migrated connection is checked daily.`;
  return (
    <div className="space-y-2 text-sm text-slate-700">
      <p>
        <Badge tone={w.status === "watching" ? "info" : "muted"}>{w.status === "watching" ? "Watching" : "Watch ended"}</Badge> {hypercare}
      </p>
      <dl className="grid gap-x-6 gap-y-1 text-xs sm:grid-cols-2">
        <div>
          <dt className="inline text-slate-500">Last check: </dt>
          <dd className="inline">{w.lastCheckAt ? formatDateTime(w.lastCheckAt) : "not yet"}</dd>
        </div>
        <div>
          <dt className="inline text-slate-500">Next check: </dt>
          <dd className="inline">{w.status === "ended" ? "none" : w.nextCheckAt ? formatDateTime(w.nextCheckAt) : "now"}</dd>
        </div>
        <div>
          <dt className="inline text-slate-500">Found: </dt>
          <dd className="inline">
            {countOf(w.drops, "drop", "drops")}, {countOf(w.reconnections, "reconnection", "reconnections")} in {countOf(w.checks, "check", "checks")}
          </dd>
        </div>
        <div>
          <dt className="inline text-slate-500">Requests: </dt>
          <dd className="inline">
            {w.requestsToday.toLocaleString("en-GB")} today{w.dailyBudget !== null ? ` of ${w.dailyBudget.toLocaleString("en-GB")} allowed (1 % of the daily quota)` : ""}; {w.requests.toLocaleString("en-GB")} in all
          </dd>
        </div>
      </dl>
      {w.lastFailure ? (
        <Notice tone="warning">
          The last check could not be made: {w.lastFailure.status ? `${w.lastFailure.status}: ` : ""}
          {w.lastFailure.error}
          {w.lastFailure.correlationId ? (
            <span className="ml-1 inline-flex items-center gap-1">
              correlationId <CopyableId value={w.lastFailure.correlationId} label="correlationId of the failed check" />
            </span>
          ) : null}{" "}
          It is tried again soon.
        </Notice>
      ) : null}
    </div>
  );
}

/** Support's to-do after the watch found migrated connections dropped: look at them, then mark them seen. */
function UnseenDrops({ engagementId, count, announce }: { engagementId: string; count: number; announce: Announce }) {
  const trpc = useTRPC();
  const invalidate = useFlowInvalidation(engagementId);
  const queryClient = useQueryClient();
  const markSeen = useMutation(trpc.lastMile.markDropsSeen.mutationOptions());
  const it = (one: string, other: string) => plural(count, { one, other });
  return (
    <Notice tone="warning">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p>
          {it("A migrated connection", `${count.toLocaleString("en-GB")} migrated connections`)} dropped during the hypercare watch since support last looked ({it("its company is", "their companies are")} marked <em>Dropped after its migration</em>). Talk {it("it", "them")} through
          with the customer, then mark {it("it", "them")} seen.
        </p>
        <Button
          variant="secondary"
          size="sm"
          pending={markSeen.isPending}
          onClick={async () => {
            try {
              await markSeen.mutateAsync({ engagementId });
              await Promise.all([queryClient.invalidateQueries({ queryKey: trpc.lastMile.get.queryKey({ engagementId }) }), invalidate()]);
              announce({ tone: "success", text: `Marked ${it("the dropped connection", "the dropped connections")} as seen.` });
            } catch (e) {
              announce({ tone: "error", text: toFormError(e).message });
            }
          }}
        >
          Mark as seen
        </Button>
      </div>
    </Notice>
  );
}

function Controls({ engagementId, lastMile: v, announce }: { engagementId: string; lastMile: LastMile; announce: Announce }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const formId = useId();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.lastMile.get.queryKey({ engagementId }) });
  const setDays = useMutation(trpc.lastMile.setHypercareDays.mutationOptions());
  const checkNow = useMutation(trpc.lastMile.checkNow.mutationOptions());
  const form = useZodForm(ZHypercareDays, { defaultValues: { days: v.hypercareDays } });
  const onSubmit = form.handleSubmit(async ({ days }) => {
    try {
      await setDays.mutateAsync({ engagementId, days });
      await refresh();
      announce({ tone: "success", text: `The hypercare watch now lasts ${countOf(days, "day", "days")} after the handover.` });
    } catch (e) {
      showServerError(form, e);
    }
  });
  return (
    <div className="flex flex-wrap items-end gap-4 border-t border-slate-100 pt-3">
      {v.controls.setHypercareDays.allowed ? (
        <Form onSubmit={onSubmit} className="flex flex-wrap items-end gap-2" aria-labelledby={`${formId}-label`}>
          <span id={`${formId}-label`} className="sr-only">
            Hypercare days
          </span>
          <Field label="Hypercare days" error={fieldMessage(form, "days") ?? formMessage(form)} hint="1 to 90 days of daily checks after the handover.">
            {(p) => <Input {...p} {...form.register("days")} inputMode="numeric" className="w-24" />}
          </Field>
          <Button type="submit" variant="secondary" size="sm" pending={setDays.isPending}>
            Save days
          </Button>
        </Form>
      ) : null}
      {v.controls.checkNow.allowed ? (
        <Button
          variant="secondary"
          size="sm"
          pending={checkNow.isPending}
          onClick={async () => {
            try {
              await checkNow.mutateAsync({ engagementId });
              await refresh();
              announce({ tone: "success", text: "A check is made within a few seconds." });
            } catch (e) {
              announce({ tone: "error", text: toFormError(e).message });
            }
          }}
        >
          Check now
        </Button>
      ) : null}
    </div>
  );
}
