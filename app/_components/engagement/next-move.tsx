"use client";
import type { NextMoveAction } from "@/core/engagements/flow-states";
import { buttonClasses } from "@/app/_components/ui";
import { defaultStep, sectionHref } from "@/app/_lib/engagement-section";
import type { EngagementDetail } from "@/app/_lib/types";
import { SectionLink } from "./section-link";

type Viewer = "console" | "portal";

/** The URL of a step of the engagement's page (step 6's moves name their part of it). */
const stepHref = (step: number) => sectionHref(defaultStep(step));

/** The words of each move's button, and where it goes: a step of the page, or a part of step 6. */
type MoveLink = { label: string; href: string; download?: boolean; /** A way to look, not an action: drawn as a secondary button. */ quiet?: boolean };

function moveLink(action: NextMoveAction, engagementId: string, step: number): MoveLink {
  switch (action) {
    case "submit_file":
      return { label: "Submit the details and token file", href: stepHref(step) };
    case "fix_file":
      return { label: "Fix the token file", href: stepHref(step) };
    case "review_submission":
      return { label: "Review the submission", href: stepHref(step) };
    case "propose_window":
      return { label: "Propose a window", href: stepHref(step) };
    case "accept_window":
      return { label: "Choose a window", href: stepHref(step) };
    case "confirm_callback":
      return { label: "Confirm the callback URL", href: stepHref(step) };
    case "confirm_syncing":
      return { label: "Confirm syncing is off", href: stepHref(step) };
    case "run_test":
      return { label: "Run the single-company test", href: stepHref(step) };
    case "follow_test":
      // Nothing to start while a test runs (the step's own buttons are disabled too): only a way to watch it.
      return { label: "Follow the test", href: stepHref(step), quiet: true };
    case "run_bulk":
      return { label: "Go to the bulk migration", href: sectionHref({ kind: "step", step: 6, part: "run" }) };
    case "produce_report":
      return { label: "Produce the handover report", href: sectionHref({ kind: "step", step: 6, part: "handover" }) };
    case "acknowledge_report":
      return { label: "Read and acknowledge the report", href: sectionHref({ kind: "step", step: 6, part: "handover" }) };
    case "send_reconnect_links":
      return { label: "Download the reconnect links (CSV)", href: `/api/engagements/${engagementId}/reconnect-links`, download: true };
    case "review_supplementary":
      return { label: "Review the fresh tokens", href: sectionHref({ kind: "step", step: 6, part: "fresh-tokens" }) };
    case "look_at_drops":
      return { label: "Look at the dropped connections", href: sectionHref({ kind: "step", step: 6, part: "reconnections" }) };
    default: {
      const never: never = action;
      return never;
    }
  }
}

/**
 * The first thing on an engagement's page: the viewer's own next move with its button, or, when
 * the engagement waits on the other side, what they are doing; nothing to do said plainly.
 */
export function NextMovePanel({ engagement: e, viewer }: { engagement: EngagementDetail; viewer: Viewer }) {
  const mine = viewer === "portal" ? "customer" : "support";
  const other = mine === "customer" ? "support" : "customer";
  const move = e.waiting.moves[mine];
  const theirs = e.waiting.moves[other];
  const otherName = other === "customer" ? e.organization.name : "Ferry support";
  const waitingOnMe = e.waiting.party === mine;
  return (
    <section
      aria-labelledby="next-move-title"
      className={
        move
          ? "rounded-lg border border-amber-300 bg-amber-50 p-4 shadow-xs sm:flex sm:items-center sm:justify-between sm:gap-6"
          : "rounded-lg border border-slate-200 bg-white p-4 shadow-xs"
      }
    >
      <div className="min-w-0 space-y-1">
        <h2 id="next-move-title" className="text-sm font-semibold text-slate-900">
          {move ? (waitingOnMe ? "Your move" : "Also for you") : e.waiting.party ? `Waiting on ${otherName}` : "Nothing to do"}
        </h2>
        {move ? <p className="text-sm text-slate-800">{move.text}</p> : null}
        {!waitingOnMe && theirs ? <p className="text-sm text-slate-600">{theirMove(theirs, { other, otherName, mine: !!move })}</p> : null}
        {!move && !theirs ? <p className="text-sm text-slate-600">{e.waiting.next}</p> : null}
      </div>
      {move ? <MoveButton link={moveLink(move.action, e.id, move.step)} /> : null}
    </section>
  );
}

/**
 * The other side's move in the viewer's words. Moves are written to the party that makes them,
 * verb first ("Run the single-company test."), which reads "Support is to run…" for the other
 * side; the one move that opens with its companies instead ("3 companies were not migrated…")
 * is quoted after whose it is.
 */
function theirMove(theirs: { action: NextMoveAction; text: string }, o: { other: "customer" | "support"; otherName: string; mine: boolean }): string {
  const lower = theirs.text.replace(/^\w/, (c) => c.toLowerCase());
  if (o.mine) return `${o.otherName}: ${lower}`;
  const who = o.other === "customer" ? "The customer" : "Support";
  if (theirs.action === "send_reconnect_links") return `${who}'s move: ${theirs.text}`;
  return `${who} is to ${lower}`;
}

function MoveButton({ link }: { link: MoveLink }) {
  const className = buttonClasses({ variant: link.quiet ? "secondary" : "primary", className: "mt-3 shrink-0 sm:mt-0" });
  if (link.download) {
    return (
      <a href={link.href} download className={className}>
        {link.label}
      </a>
    );
  }
  return (
    <SectionLink href={link.href} className={className}>
      {link.label}
    </SectionLink>
  );
}
