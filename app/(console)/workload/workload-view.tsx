"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ReferenceLink } from "@/app/_components/engagement/reference-link";
import { useAnnouncement } from "@/app/_components/use-announcement";
import { Badge, Button, Notice, ProgressBar, ResponsiveTable, Select, type ResponsiveColumn } from "@/app/_components/ui";
import { toFormError } from "@/app/_lib/trpc-error";
import { useTRPC } from "@/app/_trpc/react";
import { RISK_LABELS } from "@/core/engagements/clocks";
import type { PortfolioRow, Workload } from "@/core/engagements/portfolio-schemas";

type Person = Workload["people"][number];

const n = (value: number, tone?: string) => <span className={value ? tone : "text-slate-400"}>{value.toLocaleString("en-GB")}</span>;

export function WorkloadView() {
  const trpc = useTRPC();
  const workload = useQuery(trpc.portfolio.workload.queryOptions());
  const [open, setOpen] = useState<string | null>(null);
  const { announce, region } = useAnnouncement();
  const columns: ResponsiveColumn<Person>[] = [
    {
      label: "Person",
      title: true,
      cell: (p) => (
        <span className="font-medium text-slate-900">
          {p.name}
          {p.active ? null : <Badge tone="muted" className="ml-2">Deactivated</Badge>}
        </span>
      ),
    },
    { label: "Open", className: "tabular-nums", cell: (p) => n(p.open) },
    { label: "Late", className: "tabular-nums", cell: (p) => n(p.late, "font-semibold text-red-700") },
    { label: "At risk", className: "tabular-nums", cell: (p) => n(p.atRisk, "font-semibold text-amber-800") },
    { label: "Support's move", className: "tabular-nums", cell: (p) => n(p.supportsMove) },
    { label: "On hold", className: "tabular-nums", cell: (p) => n(p.onHold) },
    { label: "Stale", className: "tabular-nums", cell: (p) => n(p.stale) },
    { label: "Runs under way", className: "tabular-nums", cell: (p) => n(p.liveRuns) },
    {
      label: "Windows, next 7 days",
      className: "tabular-nums",
      cell: (p) => (
        <span>
          {n(p.windowsAgreed)} agreed{p.windowsProposed ? `, ${p.windowsProposed} proposed` : ""}
        </span>
      ),
    },
    {
      label: "Engagements",
      labelHidden: true,
      cell: (p) =>
        p.open ? (
          <Button variant="secondary" size="sm" aria-expanded={open === p.id} aria-controls={`engagements-${p.id}`} onClick={() => setOpen(open === p.id ? null : p.id)}>
            {open === p.id ? "Hide" : "Show"} {p.name}&apos;s engagements
          </Button>
        ) : null,
    },
  ];
  const person = workload.data?.people.find((p) => p.id === open);
  return (
    <div className="space-y-6">
      {region}
      {workload.error ? <Notice tone="error">{toFormError(workload.error).message}</Notice> : null}
      {workload.data ? (
        <ResponsiveTable caption="Workload by person" captionVisible={false} columns={columns} rows={workload.data.people} rowKey={(p) => p.id} stackBelow="lg" dense />
      ) : (
        <ProgressBar label="Loading the workload" size="sm" />
      )}
      {person ? <OwnedEngagements key={person.id} person={person} onHandedOn={(text) => announce({ tone: "success", text })} /> : null}
    </div>
  );
}

/** One person's open engagements, most urgent first, each with a way to hand it to someone else. */
function OwnedEngagements({ person, onHandedOn }: { person: Person; onHandedOn: (text: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const owned = useQuery(trpc.portfolio.get.queryOptions({ ownerId: person.id, pageSize: 200 }));
  const staff = useQuery(trpc.users.staff.queryOptions());
  const setOwner = useMutation(trpc.engagements.setOwner.mutationOptions());
  const [error, setError] = useState<string | null>(null);
  const others = (staff.data ?? []).filter((s) => s.id !== person.id);
  async function handOn(row: PortfolioRow, ownerId: string) {
    setError(null);
    try {
      await setOwner.mutateAsync({ engagementId: row.id, ownerId });
      await Promise.all([queryClient.invalidateQueries({ queryKey: trpc.portfolio.pathKey() }), queryClient.invalidateQueries({ queryKey: trpc.engagements.pathKey() })]);
      onHandedOn(`${row.reference} is now ${others.find((s) => s.id === ownerId)?.name ?? "someone else"}'s.`);
    } catch (e) {
      setError(toFormError(e).message);
    }
  }
  const columns: ResponsiveColumn<PortfolioRow>[] = [
    { label: "Engagement", title: true, className: "whitespace-nowrap", cell: (r) => <ReferenceLink href={`/engagements/${r.id}`} reference={r.reference} /> },
    { label: "Customer", cell: (r) => `${r.organizationName} · ${r.platformName}` },
    { label: "Step", cell: (r) => (r.currentStep <= 6 ? `${r.currentStep}. ${r.stepTitle}` : r.stepTitle) },
    { label: "Risk", cell: (r) => (r.paused ? <Badge tone="neutral">On hold</Badge> : r.risk ? <Badge tone={r.risk === "late" ? "danger" : r.risk === "at_risk" ? "warning" : "success"}>{RISK_LABELS[r.risk]}</Badge> : "—") },
    {
      label: "Hand to",
      cell: (r) => (
        <Select aria-label={`Hand ${r.reference} to`} value="" disabled={setOwner.isPending} onChange={(e) => e.target.value && void handOn(r, e.target.value)} className="h-9 min-w-40">
          <option value="">Hand to…</option>
          {others.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </Select>
      ),
    },
  ];
  return (
    <section id={`engagements-${person.id}`} aria-label={`${person.name}'s engagements`} className="space-y-3">
      <h2 className="text-base font-semibold text-slate-900">{person.name}&apos;s open engagements</h2>
      {error ? <Notice tone="error">{error}</Notice> : null}
      {owned.data ? (
        <ResponsiveTable caption={`${person.name}'s open engagements`} captionVisible={false} columns={columns} rows={owned.data.rows} rowKey={(r) => r.id} stackBelow="lg" dense />
      ) : (
        <ProgressBar label={`Loading ${person.name}'s engagements`} size="sm" />
      )}
    </section>
  );
}
