"use client";
import { useQuery } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { createContext, useContext, useState, type ReactNode } from "react";
import { cn } from "@/app/_components/ui";
import { defaultStep6Part, sectionFromParams, sectionHref, STEP_6_PARTS, type Step6Part } from "@/app/_lib/engagement-section";
import type { EngagementDetail } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { companiesText } from "@/core/words";
import { SectionLink } from "./section-link";

type Viewer = "console" | "portal";

const PART_LABEL: Record<Step6Part, string> = {
  run: "Bulk migration",
  reconnections: "Reconnections",
  "fresh-tokens": "Fresh tokens",
  handover: "Handover report",
};

/**
 * The part step 6 first opened at on this page, which the engagement page keeps for as long as it
 * is open: back on step 6 without a part in the URL (the back button, the steps' link) is back
 * where the reader was, even if the run has ended meanwhile and the move is now elsewhere.
 */
export class Step6PartMemory {
  private part: Step6Part | null = null;
  /** The part remembered, or `choose()`'s, remembered from now on. */
  recall(choose: () => Step6Part): Step6Part {
    this.part ??= choose();
    return this.part;
  }
}

export const Step6PartMemoryContext = createContext<Step6PartMemory | null>(null);

/**
 * Which part of step 6 is shown: the URL's (`?step=6&part=…`), else where the viewer's move is as
 * it stood when step 6 was first opened on the page, so the view does not move under the reader
 * when a run ends.
 */
export function useStep6Part(e: EngagementDetail, viewer: Viewer): Step6Part {
  const params = useSearchParams();
  const memory = useContext(Step6PartMemoryContext);
  const [opened] = useState(() => {
    const choose = () =>
      defaultStep6Part({
        mine: e.waiting.moves[viewer === "portal" ? "customer" : "support"]?.action ?? null,
        theirs: e.waiting.moves[viewer === "portal" ? "support" : "customer"]?.action ?? null,
        step6Done: e.steps.find((s) => s.number === 6)?.state === "done",
      });
    return memory ? memory.recall(choose) : choose();
  });
  const section = sectionFromParams(params, { kind: "step", step: 6, part: opened });
  return section.kind === "step" && section.part ? section.part : opened;
}

/**
 * Step 6 one part at a time — the bulk run, the reconnections, fresh tokens, the handover report —
 * each its own URL, with how many companies wait in the two parts of the last mile. The parts'
 * own panels are given by the console and the portal; a part with nothing in it yet says so.
 */
export function Step6Parts({ engagement, viewer, parts }: { engagement: EngagementDetail; viewer: Viewer; parts: Record<Step6Part, ReactNode> }) {
  const trpc = useTRPC();
  const part = useStep6Part(engagement, viewer);
  const input = { engagementId: engagement.id };
  const lastMile = useQuery(trpc.lastMile.get.queryOptions(input));
  const fresh = useQuery(trpc.supplementary.get.queryOptions(input));
  const counts: Partial<Record<Step6Part, number>> = {
    reconnections: lastMile.data?.pendingTotal || undefined,
    "fresh-tokens": fresh.data?.waiting.total || undefined,
  };
  const empty: Partial<Record<Step6Part, ReactNode>> = {
    reconnections:
      lastMile.data && !lastMile.data.watch && lastMile.data.pendingTotal === 0 ? (
        <Empty>
          No company waits for its end customer. Companies the bulk run cannot migrate with the tokens given come here, each with the reconnect link its end
          customer opens to connect again.
        </Empty>
      ) : null,
    "fresh-tokens":
      fresh.data && !fresh.data.waiting.total && !fresh.data.current ? (
        <Empty>No company needs fresh tokens. Companies that fail on their tokens in the bulk run can be sent fresh ones here, in a file of the same columns.</Empty>
      ) : null,
  };
  return (
    <div className="space-y-4">
      {/* On a phone the four parts sit two by two, every one in view (a row of tabs cut at the
          screen's edge hid the handover report); from `sm` up, one row of tabs. */}
      <nav aria-label="Parts of step 6" className="print:hidden sm:-mx-5 sm:border-b sm:border-slate-200 sm:px-5">
        <ul className="grid grid-cols-2 gap-2 sm:flex sm:gap-4">
          {STEP_6_PARTS.map((p) => {
            const current = p === part;
            return (
              <li key={p} className="min-w-0 sm:shrink-0">
                <SectionLink
                  href={sectionHref({ kind: "step", step: 6, part: p })}
                  aria-current={current ? "page" : undefined}
                  className={cn(
                    "relative flex items-center justify-center gap-1.5 rounded-md px-2 py-2 text-center text-sm ring-1 ring-inset",
                    "sm:-mb-px sm:justify-start sm:rounded-none sm:border-b-2 sm:px-1 sm:text-left sm:ring-0",
                    current
                      ? "bg-indigo-50 font-semibold text-slate-900 ring-indigo-300 sm:border-indigo-600 sm:bg-transparent"
                      : "font-medium text-slate-700 ring-slate-200 hover:bg-slate-50 hover:text-slate-900 sm:border-transparent sm:hover:border-slate-300 sm:hover:bg-transparent",
                  )}
                >
                  {PART_LABEL[p]}
                  {counts[p] ? (
                    <span className="rounded-full bg-amber-100 px-1.5 text-xs font-semibold text-amber-900">
                      <span aria-hidden="true">{counts[p]!.toLocaleString("en-GB")}</span>
                      <span className="sr-only">({companiesText(counts[p]!)})</span>
                    </span>
                  ) : null}
                </SectionLink>
              </li>
            );
          })}
        </ul>
      </nav>
      <div key={part}>{empty[part] ?? parts[part]}</div>
    </div>
  );
}

function Empty({ children }: { children: ReactNode }) {
  return <p className="rounded-md border border-dashed border-slate-300 px-4 py-6 text-sm text-slate-600">{children}</p>;
}
