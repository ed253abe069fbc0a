"use client";
import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from "react";
import { Button, Field, Notice, ProgressBar, Select } from "@/app/_components/ui";
import { TIMELINE_WHO, type TimelineWho } from "@/core/engagements/schemas";
import { defaultStep, sectionFromParams, sectionHref, sectionKey, type EngagementSection } from "@/app/_lib/engagement-section";
import { statusLabel } from "@/app/_lib/labels";
import { toFormError } from "@/app/_lib/trpc-error";
import type { EngagementDetail, StepView } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { StepCard } from "./checklist";
import { NextMovePanel } from "./next-move";
import { scrollToAnchor, SectionLink } from "./section-link";
import { Step6PartMemory, Step6PartMemoryContext } from "./step-6-parts";
import { StepRail } from "./step-rail";
import { Timeline } from "./timeline";

type Viewer = "console" | "portal";

/**
 * An engagement's page, the same in the console and the portal: the header (reference, status,
 * what it is; given by the page), the viewer's next move, the engagement's details, then the
 * steps as navigation and one section at a time — a step with its flow, or the activity. The
 * section is the URL's (`?step=3`, `?tab=activity`); without one the page opens at the step the
 * engagement was at when it was opened, and stays there while the engagement moves on (a test
 * that passes does not carry the page off to step 6 under the reader's eyes).
 */
export function EngagementWorkspace({
  engagement: e,
  viewer,
  header,
  details,
  announcements,
  renderStep,
  activityTitle,
}: {
  engagement: EngagementDetail;
  viewer: Viewer;
  header: ReactNode;
  details: ReactNode;
  /** The page's announcement region (the outcome of the last action). */
  announcements: ReactNode;
  /** A step's own flow and the viewer's controls for it. */
  renderStep: (step: StepView) => { panel: ReactNode; actions?: ReactNode };
  activityTitle: string;
}) {
  const params = useSearchParams();
  const [opened] = useState(() => defaultStep(e.currentStep));
  const section = sectionFromParams(params, opened);
  const mine = viewer === "portal" ? "customer" : "support";
  const moveStep = e.waiting.moves[mine]?.step ?? null;
  useSectionScroll(section);
  useFreshOnShow(e.id, sectionKey(section));
  const [step6Memory] = useState(() => new Step6PartMemory());

  return (
    <Step6PartMemoryContext value={step6Memory}>
      <div className="space-y-5">
        {header}
        <NextMovePanel engagement={e} viewer={viewer} />
        {details}
        {e.status !== "active" ? (
          <Notice tone={e.status === "completed" ? "success" : "warning"}>
            {e.status === "completed"
              ? "This engagement is completed; its steps can no longer change."
              : `This engagement is ${statusLabel(e.status).toLowerCase()}; its steps can change only while it is active.`}
          </Notice>
        ) : null}
        <div data-section-top className="space-y-4">
          <StepRail steps={e.steps} section={section} moveStep={moveStep} activityLabel={activityTitle} />
          {announcements}
          {section.kind === "activity" ? (
            <Activity engagementId={e.id} title={activityTitle} staff={viewer === "console"} />
          ) : (
            <OneStep engagement={e} step={section.step} renderStep={renderStep} />
          )}
        </div>
      </div>
    </Step6PartMemoryContext>
  );
}

/** Events of the activity shown at first, and added by each "Show older". */
const ACTIVITY_PAGE = 50;

const WHO_LABELS: Record<TimelineWho, string> = { everyone: "Everyone", people: "People only", system: "The system only" };
const NOTHING_YET: Record<TimelineWho, string> = { everyone: "Nothing has happened yet.", people: "Nobody has done anything here yet.", system: "The system has done nothing here yet." };

/**
 * The engagement's audit events, newest first, fifty at a time, told as a story (a run of the
 * worker's per-company events is one line saying how many), filtered to everyone's, the people's or
 * the system's; staff may read every event on a line of its own. Read afresh whenever it is opened:
 * what the worker did meanwhile (a run that stopped or finished) is in it, though no screen was
 * watching.
 */
function Activity({ engagementId, title, staff }: { engagementId: string; title: string; staff: boolean }) {
  const trpc = useTRPC();
  const [who, setWho] = useState<TimelineWho>("everyone");
  const [every, setEvery] = useState(false);
  // The default view asks with the input the server's prefetch used, so it is found in the cache.
  const input = who === "everyone" && !every ? { engagementId } : { engagementId, who, every };
  const timeline = useQuery({ ...trpc.engagements.timeline.queryOptions(input), refetchOnMount: "always", placeholderData: keepPreviousData });
  const [shown, setShown] = useState(ACTIVITY_PAGE);
  const entries = timeline.data;
  return (
    <section aria-labelledby="timeline-title" className="space-y-4 rounded-lg border border-slate-200 bg-white p-4 shadow-xs sm:p-5">
      <div className="flex flex-wrap items-end justify-between gap-x-6 gap-y-3">
        <h2 id="timeline-title" className="text-base font-semibold text-slate-900">
          {title}
        </h2>
        <div className="flex flex-wrap items-end gap-x-4 gap-y-2">
          <Field label="Show" className="w-44">
            {(p) => (
              <Select {...p} value={who} onChange={(e) => setWho(e.target.value as TimelineWho)}>
                {TIMELINE_WHO.map((w) => (
                  <option key={w} value={w}>
                    {WHO_LABELS[w]}
                  </option>
                ))}
              </Select>
            )}
          </Field>
          {staff ? (
            <label className="flex h-10 items-center gap-2 text-sm text-slate-800">
              <input type="checkbox" className="size-4 rounded border-slate-300 text-indigo-600" checked={every} onChange={(e) => setEvery(e.target.checked)} />
              Every event on its own line
            </label>
          ) : null}
        </div>
      </div>
      {entries ? (
        <>
          {entries.length ? <Timeline entries={entries.slice(0, shown)} /> : <p className="text-sm text-slate-600">{NOTHING_YET[who]}</p>}
          {entries.length > shown ? (
            <div className="flex flex-wrap items-center gap-3 text-sm text-slate-600">
              <span>
                The newest {shown.toLocaleString("en-GB")} of {entries.length.toLocaleString("en-GB")} entries.
              </span>
              <Button variant="secondary" size="sm" onClick={() => setShown((n) => n + ACTIVITY_PAGE)}>
                Show {Math.min(ACTIVITY_PAGE, entries.length - shown).toLocaleString("en-GB")} older
              </Button>
            </div>
          ) : null}
        </>
      ) : timeline.error ? (
        <Notice tone="error">{toFormError(timeline.error).message}</Notice>
      ) : (
        <ProgressBar label={`Loading the ${title.toLowerCase()}`} size="sm" />
      )}
    </section>
  );
}

function OneStep({
  engagement: e,
  step: number,
  renderStep,
}: {
  engagement: EngagementDetail;
  step: number;
  renderStep: (step: StepView) => { panel: ReactNode; actions?: ReactNode };
}) {
  const step = e.steps.find((s) => s.number === number) ?? e.steps[0]!;
  const { panel, actions } = renderStep(step);
  const before = e.steps.find((s) => s.number === step.number - 1);
  const after = e.steps.find((s) => s.number === step.number + 1);
  return (
    <div className="space-y-3">
      <h2 className="sr-only">Checklist</h2>
      {/* Keyed by step: a step's own state (a chosen file, an open form) belongs to that step. */}
      <StepCard key={step.number} step={step} panel={panel} actions={actions} />
      <nav aria-label="Previous and next step" className="flex flex-wrap justify-between gap-3 text-sm print:hidden">
        {before ? (
          <SectionLink href={sectionHref({ kind: "step", step: before.number })} className="font-medium text-indigo-700 hover:underline">
            ← {before.number}. {before.title}
          </SectionLink>
        ) : (
          <span />
        )}
        {after ? (
          <SectionLink href={sectionHref({ kind: "step", step: after.number })} className="font-medium text-indigo-700 hover:underline">
            {after.number}. {after.title} →
          </SectionLink>
        ) : null}
      </nav>
    </div>
  );
}

/**
 * What a section shows is read again when it is shown: a step's panel was not on the page while
 * the engagement moved on (step 4 done, a run ended), and what it read then may be out of date.
 * The engagement's reads are marked stale before the new section's queries subscribe (a layout
 * effect runs before their passive ones), so each shows what it has and refreshes it at once;
 * nothing is read for a section that is not shown.
 */
function useFreshOnShow(engagementId: string, key: string) {
  const queryClient = useQueryClient();
  useLayoutEffect(() => {
    void queryClient.invalidateQueries({ predicate: (q) => JSON.stringify(q.queryKey).includes(engagementId), refetchType: "none" });
  }, [queryClient, engagementId, key]);
}

/**
 * Where the window goes when the section changes: back up to the steps when the reader had
 * scrolled past them, so a new step is read from its top; on opening, to the place the URL's
 * anchor names once it is drawn (its data loads after the page).
 */
function useSectionScroll(section: EngagementSection) {
  const key = sectionKey(section);
  const first = useRef(true);
  useEffect(() => {
    const initial = first.current;
    first.current = false;
    if (initial) {
      const anchor = window.location.hash.slice(1);
      return anchor ? scrollToAnchor(anchor) : undefined;
    }
    const top = document.querySelector<HTMLElement>("[data-section-top]");
    if (!top) return;
    const y = top.getBoundingClientRect().top + window.scrollY;
    if (window.scrollY > y) window.scrollTo({ top: y });
  }, [key]);
}
