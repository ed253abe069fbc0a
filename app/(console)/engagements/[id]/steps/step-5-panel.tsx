"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useDeferredValue, useEffect, useId, useRef, useState } from "react";
import { TestRunList, TestRunView } from "@/app/_components/migration/test-run-view";
import type { Announce } from "@/app/_components/use-announcement";
import { Button, Field, Form, Input, Notice, ProgressBar, Select } from "@/app/_components/ui";
import { fieldMessage, formMessage, showServerError, useZodForm } from "@/app/_components/ui/use-zod-form";
import { toFormError } from "@/app/_lib/trpc-error";
import type { EngagementDetail, StepView } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { companiesText } from "@/core/words";
import { ZStartTestRequest } from "@/server/api/routers/tests.types";
import { useEngagementInvalidation } from "../use-engagement-invalidation";

/** How often a running test is read again. */
const POLL_MS = 1_000;

const ZStartForm = ZStartTestRequest.pick({ itemId: true });

/** What the picker lists out of how many: all of them, or the smallest few and that a search finds the rest. */
function pickerCount(list: { companies: readonly unknown[]; total: number; matching: number }, search: string): string {
  const listed = list.companies.length;
  if (!search) {
    return listed >= list.total
      ? `All ${companiesText(list.total)} listed, smallest first.`
      : `The ${listed.toLocaleString("en-GB")} smallest of ${companiesText(list.total)} are listed; search finds the others.`;
  }
  if (list.matching === 0) return `No company of the ${list.total.toLocaleString("en-GB")} matches “${search}”.`;
  return listed >= list.matching
    ? `${companiesText(list.matching)} of ${list.total.toLocaleString("en-GB")} ${list.matching === 1 ? "matches" : "match"} “${search}”.`
    : `The ${listed.toLocaleString("en-GB")} smallest of the ${list.matching.toLocaleString("en-GB")} companies matching “${search}” are listed; search for more of the name to find the others.`;
}

/**
 * Step 5: support picks a company (or lets Ferry pick the smallest) and runs the single-company
 * test against the engagement's service target, or rehearses on the built-in sandbox; which of
 * them (and cancelling) is on offer, and why not, is the server's answer (tests.controls). A worker
 * carries the run out; this panel shows it call by call while it runs, then its checks, the
 * advice on a failure, and the engagement's earlier runs.
 */
export function Step5Panel({ engagement, announce }: { engagement: EngagementDetail; step: StepView; announce: Announce }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const invalidateEngagement = useEngagementInvalidation(engagement.id);
  const engagementId = engagement.id;
  const searchId = useId();
  const [search, setSearch] = useState("");
  const deferredSearch = useDeferredValue(search.trim());
  const [selectedId, setSelectedId] = useState<string | null>(null);

  const items = useQuery(trpc.tests.items.queryOptions({ engagementId, search: deferredSearch || undefined }));
  // What the server offers now (test, rehearsal, cancel) and why not: read again whenever the
  // engagement changes (its steps, status or target decide it), when a run starts, and while one
  // is under way (cancelling it is on offer), so its end frees the buttons.
  const controls = useQuery(trpc.tests.controls.queryOptions({ engagementId }, { refetchInterval: (q) => (q.state.data?.cancel.allowed ? POLL_MS : false) }));
  const refreshControls = useCallback(() => queryClient.invalidateQueries({ queryKey: trpc.tests.controls.queryKey({ engagementId }) }), [queryClient, trpc, engagementId]);
  const seenEngagement = useRef(engagement);
  useEffect(() => {
    if (seenEngagement.current === engagement) return;
    seenEngagement.current = engagement;
    void refreshControls();
  }, [engagement, refreshControls]);
  const runs = useQuery(
    trpc.tests.list.queryOptions({ engagementId }, { refetchInterval: (q) => (q.state.data?.some((r) => r.active) ? POLL_MS : false) }),
  );
  const shownId = selectedId ?? runs.data?.[0]?.id ?? null;
  const run = useQuery({
    ...trpc.tests.get.queryOptions({ engagementId, runId: shownId ?? "" }, { refetchInterval: (q) => (q.state.data?.active ? POLL_MS : false) }),
    enabled: shownId !== null,
  });

  // When the run shown ends, the checklist may have moved (step 5 done, step 4 reopened): say so and refresh it.
  const wasActive = useRef<{ id: string; active: boolean } | null>(null);
  const [startedId, setStartedId] = useState<string | null>(null);
  useEffect(() => {
    const data = run.data;
    if (!data) return;
    const before = wasActive.current;
    wasActive.current = { id: data.id, active: data.active };
    const endedWhileShown = before?.id === data.id && before.active && !data.active;
    // The run this page just started, already over when first read (a quick failure), ended too.
    const endedBeforeFirstRead = data.id === startedId && before?.id !== data.id && !data.active;
    if (endedWhileShown || endedBeforeFirstRead) {
      void invalidateEngagement();
      void refreshControls();
      void queryClient.invalidateQueries({ queryKey: trpc.tests.list.queryKey({ engagementId }) });
      const what = data.kind === "rehearsal" ? "The rehearsal" : "The single-company test";
      announce(
        data.result === "passed"
          ? { tone: "success", text: `${what} on ${data.company ?? "the company"} passed${data.stepEffect?.kind === "completed" ? ": step 5 is done" : ""}.` }
          : { tone: "error", text: `${what} on ${data.company ?? "the company"} ${data.status === "cancelled" ? "was cancelled" : `failed: ${data.advice?.text ?? data.statusReason ?? ""}`}` },
      );
    }
  }, [run.data, startedId, announce, invalidateEngagement, refreshControls, queryClient, trpc, engagementId]);

  const form = useZodForm(ZStartForm, { defaultValues: { itemId: "" } });
  const start = useMutation(trpc.tests.start.mutationOptions());
  const cancel = useMutation(trpc.tests.cancel.mutationOptions());

  const submit = (kind: "pilot" | "rehearsal") =>
    form.handleSubmit(async ({ itemId }) => {
      try {
        const { runId } = await start.mutateAsync({ engagementId, kind, itemId: itemId || null });
        setStartedId(runId);
        setSelectedId(runId);
        await Promise.all([invalidateEngagement(), refreshControls(), queryClient.invalidateQueries({ queryKey: trpc.tests.list.queryKey({ engagementId }) })]);
        announce({
          tone: "success",
          text: kind === "rehearsal" ? "Rehearsal asked for: a worker sets up simulated companies on the sandbox and tests one." : "Single-company test asked for: a worker takes it up now.",
        });
      } catch (e) {
        showServerError(form, e);
      }
    });

  const pilot = controls.data?.pilot;
  const rehearsal = controls.data?.rehearsal;
  // The server's words for what is not on offer; the rehearsal's only when it says something more.
  const refusals = [pilot?.reason, rehearsal?.allowed ? (pilot?.reason ? "A rehearsal can run now." : null) : rehearsal?.reason].filter(
    (r, i, all): r is string => !!r && all.indexOf(r) === i,
  );
  const noCompanies = items.isSuccess && items.data.total === 0;

  return (
    <div className="space-y-5">
      {noCompanies ? (
        <Notice tone="info">There are no companies to test yet: they come from the token file accepted in step 1.</Notice>
      ) : (
        <Form onSubmit={submit("pilot")} className="space-y-3" aria-label="Run a single-company test">
          {formMessage(form) ? <Notice tone="error">{formMessage(form)}</Notice> : null}
          <div className="grid gap-3 sm:grid-cols-2">
            <div className="space-y-1.5">
              <label htmlFor={searchId} className="block text-sm font-medium text-slate-800">
                Find a company
              </label>
              <Input
                id={searchId}
                type="search"
                value={search}
                onChange={(e) => setSearch(e.target.value)}
                placeholder="Name or external reference"
                aria-describedby={`${searchId}-count`}
              />
              <p id={`${searchId}-count`} className="text-sm text-slate-600" aria-live="polite">
                {items.data ? pickerCount(items.data, deferredSearch) : "\u00a0"}
              </p>
            </div>
            <Field label="Company to test" error={fieldMessage(form, "itemId")} hint="Ferry's pick: the smallest company by records, which syncs fastest.">
              {(p) => (
                <Select {...p} {...form.register("itemId")}>
                  <option value="">Let Ferry pick the smallest company</option>
                  {items.data?.companies.map((i) => (
                    <option key={i.id} value={i.id}>
                      {i.name}
                      {i.externalRef ? ` (${i.externalRef})` : ""}
                      {i.records !== null ? ` · ${i.records} records` : ""}
                      {i.state !== "pending" ? ` · ${i.state.replace("_", " ")}` : ""}
                    </option>
                  ))}
                </Select>
              )}
            </Field>
          </div>
          <div className="flex flex-wrap items-center gap-2">
            <Button type="submit" disabled={!pilot?.allowed} pending={start.isPending && start.variables?.kind === "pilot"}>
              Run the single-company test
            </Button>
            <Button variant="secondary" disabled={!rehearsal?.allowed} pending={start.isPending && start.variables?.kind === "rehearsal"} onClick={submit("rehearsal")}>
              Rehearse on the sandbox
            </Button>
          </div>
          {controls.data ? (
            <p className="text-sm text-slate-600">
              {refusals.length
                ? refusals.join(" ")
                : `The test runs against ${engagement.serviceTarget ? `${engagement.serviceTarget.name}` : "the engagement's service target"}; the rehearsal uses simulated companies on the built-in sandbox and touches nothing real.`}
            </p>
          ) : controls.error ? (
            <Notice tone="error">{toFormError(controls.error).message}</Notice>
          ) : null}
        </Form>
      )}

      {run.data ? (
        <div className="space-y-3">
          {run.data.active && controls.data?.cancel.allowed ? (
            <Button
              variant="secondary"
              size="sm"
              pending={cancel.isPending}
              onClick={() =>
                cancel.mutate(
                  { engagementId, runId: run.data.id, reason: "Cancelled by support from the step 5 panel." },
                  {
                    onSuccess: () =>
                      Promise.all([
                        queryClient.invalidateQueries({ queryKey: trpc.tests.get.queryKey({ engagementId, runId: run.data.id }) }),
                        queryClient.invalidateQueries({ queryKey: trpc.tests.list.queryKey({ engagementId }) }),
                        refreshControls(),
                        invalidateEngagement(),
                      ]),
                    onError: (e) => announce({ tone: "error", text: toFormError(e).message }),
                  },
                )
              }
            >
              Cancel this {run.data.kind === "rehearsal" ? "rehearsal" : "test"}
            </Button>
          ) : null}
          <TestRunView run={run.data} />
        </div>
      ) : shownId && run.isPending ? (
        <ProgressBar label="Loading the test run" size="sm" />
      ) : null}

      {runs.data && runs.data.length > 1 ? <TestRunList runs={runs.data} selectedId={shownId} onSelect={setSelectedId} /> : null}
    </div>
  );
}
