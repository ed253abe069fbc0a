"use client";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { enGB } from "date-fns/locale";
import { format, getDay, parse, startOfWeek } from "date-fns";
import { useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { Calendar as BigCalendar, dateFnsLocalizer, type EventPropGetter } from "react-big-calendar";
import "react-big-calendar/lib/css/react-big-calendar.css";
import { ConfirmDialog } from "@/app/_components/confirm-dialog";
import { ReferenceLink } from "@/app/_components/engagement/reference-link";
import { Badge, Button, cn, CopyButton, EmptyState, Notice, ResponsiveTable, type ResponsiveColumn } from "@/app/_components/ui";
import { calendarHref, parseCalendarParams, todayUtc } from "@/app/_lib/calendar-params";
import { formatDateTime } from "@/app/_lib/labels";
import { useUrlInPlace } from "@/app/_lib/use-url-in-place";
import { useTRPC } from "@/app/_trpc/react";
import { stepDay, type CalendarQuery, type CalendarWindow } from "@/core/engagements/calendar-schemas";
import { companiesText, countOf } from "@/core/words";

const localizer = dateFnsLocalizer({ format, parse, startOfWeek: (d: Date) => startOfWeek(d, { weekStartsOn: 1 }), getDay, locales: { "en-GB": enGB } });

/**
 * Windows are agreed in UTC, and the grid draws in the browser's zone: each time is handed to it as
 * the same wall-clock reading in local time, so 09:00 UTC sits at 09:00 for everyone.
 */
const wall = (d: Date) => new Date(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes());

const monthTitle = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", month: "long", year: "numeric" });
const dayTitle = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", day: "numeric", month: "short", year: "numeric" });

function periodTitle(view: CalendarQuery["view"], from: Date, to: Date, day: string): string {
  if (view === "month") return monthTitle.format(new Date(`${day}T00:00:00Z`));
  return `${dayTitle.format(from)} – ${dayTitle.format(new Date(to.getTime() - 86_400_000))}`;
}

type Event = { title: string; start: Date; end: Date; window: CalendarWindow };

function requestsText(w: CalendarWindow): string {
  return w.estimateRequests === null ? "requests not recorded" : `${countOf(w.estimateRequests, "request", "requests")}, ${companiesText(w.estimateCompanies ?? 0)}`;
}

/**
 * The grid is a picture of the windows; the list under it is their accessible form. The grid's
 * package marks its cells up with table roles that do not nest as ARIA requires (a column header
 * inside a button, rows without cells) and makes its hours a scroll box no key can reach. So its
 * table roles are taken off as it renders, and the scroll box takes focus with a name.
 */
function useGridRepair() {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const repair = () => {
      for (const node of el.querySelectorAll('[role="table"], [role="rowgroup"], [role="row"], [role="cell"], [role="columnheader"]')) node.removeAttribute("role");
      for (const node of el.querySelectorAll("[aria-sort]")) node.removeAttribute("aria-sort");
      for (const node of el.querySelectorAll(".rbc-time-content:not([tabindex])")) {
        node.setAttribute("tabindex", "0");
        node.setAttribute("aria-label", "Hours of the week (scrolls)");
      }
    };
    repair();
    const observer = new MutationObserver(repair);
    observer.observe(el, { subtree: true, childList: true, attributes: true, attributeFilter: ["role", "aria-sort"] });
    return () => observer.disconnect();
  }, []);
  return ref;
}

/** A pair of buttons of which one is pressed (the view, the scope). */
function Toggle<T extends string>({ label, value, options, onChange }: { label: string; value: T; options: { value: T; label: string }[]; onChange: (v: T) => void }) {
  return (
    <div role="group" aria-label={label} className="inline-flex overflow-hidden rounded-md border border-slate-300">
      {options.map((o) => (
        <button
          key={o.value}
          type="button"
          aria-pressed={o.value === value}
          onClick={() => onChange(o.value)}
          className={cn(
            "px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-sky-600",
            o.value === value ? "bg-slate-900 text-white" : "bg-white text-slate-700 hover:bg-slate-50",
          )}
        >
          {o.label}
        </button>
      ))}
    </div>
  );
}

function WindowDetail({ w, onClose }: { w: CalendarWindow; onClose: () => void }) {
  return (
    <section aria-label={`Window of ${w.reference}`} className="space-y-2 rounded-md border border-slate-200 bg-white p-4 text-sm">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 className="font-semibold text-slate-900">
          <ReferenceLink href={`/engagements/${w.engagementId}`} reference={w.reference} /> · {w.organizationName} · {w.platformName}
        </h2>
        <Button variant="ghost" size="sm" onClick={onClose}>
          Close
        </Button>
      </div>
      <p>
        {formatDateTime(w.startsAt)} – {formatDateTime(w.endsAt)} · <Badge tone={w.status === "accepted" ? "success" : "muted"}>{w.status === "accepted" ? "Agreed" : "Proposed"}</Badge>
      </p>
      <p className="text-slate-700">
        Owner {w.ownerName}. Target {w.target.name} ({w.target.limits}). Estimated {w.estimate}; {requestsText(w)}.
      </p>
      {w.overlap ? <Notice tone="warning" title="Overlap on this target">{w.overlap.text}</Notice> : null}
    </section>
  );
}

function columns(): ResponsiveColumn<CalendarWindow>[] {
  return [
    {
      label: "Window (UTC)",
      title: true,
      className: "min-w-44",
      cell: (w) => (
        <span className="inline-flex flex-col">
          <span className="whitespace-nowrap">{formatDateTime(w.startsAt)}</span>
          <span className="text-xs whitespace-nowrap text-slate-600">to {formatDateTime(w.endsAt)}</span>
        </span>
      ),
    },
    {
      label: "Engagement",
      cell: (w) => (
        <span className="inline-flex flex-col gap-0.5">
          <ReferenceLink href={`/engagements/${w.engagementId}`} reference={w.reference} />
          <span className="text-xs text-slate-600">
            {w.organizationName} · {w.platformName}
          </span>
        </span>
      ),
    },
    { label: "Status", cell: (w) => <Badge tone={w.status === "accepted" ? "success" : "muted"}>{w.status === "accepted" ? "Agreed" : "Proposed"}</Badge> },
    { label: "Owner", cell: (w) => w.ownerName },
    {
      label: "Target and estimate",
      className: "min-w-48",
      cell: (w) => (
        <span className="inline-flex flex-col">
          <span>{w.target.name}</span>
          <span className="text-xs text-slate-600">
            {w.estimate}; {requestsText(w)}
          </span>
        </span>
      ),
    },
    {
      label: "Overlap",
      wide: true,
      className: "min-w-64",
      cell: (w) =>
        w.overlap ? (
          <span className="inline-flex flex-col gap-1">
            <span>
              <Badge tone="danger">Overlap: {w.overlap.limit === "rate" ? "rate limit" : "daily quota"}</Badge>
            </span>
            <span className="text-xs text-slate-700">{w.overlap.text}</span>
          </span>
        ) : (
          <span className="text-slate-500">None</span>
        ),
    },
  ];
}

/** The viewer's secret feed URL for a calendar program, with copy and reset. */
function FeedPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const feed = useQuery(trpc.calendar.feed.queryOptions());
  const reset = useMutation(trpc.calendar.resetFeed.mutationOptions());
  const [confirming, setConfirming] = useState(false);
  const make = async () => {
    const made = await reset.mutateAsync();
    queryClient.setQueryData(trpc.calendar.feed.queryKey(), made);
    setConfirming(false);
  };
  const url = feed.data?.url ?? null;
  return (
    <section aria-labelledby="feed-heading" className="space-y-2 rounded-md border border-slate-200 bg-white p-4 text-sm">
      <h2 id="feed-heading" className="font-semibold text-slate-900">
        Subscribe in your calendar
      </h2>
      <p className="text-slate-600">A private .ics address of the windows of the engagements you own. Anyone with it can read them: reset it if it leaks.</p>
      {url ? (
        <div className="flex flex-wrap items-center gap-2">
          <code className="max-w-full truncate rounded bg-slate-100 px-2 py-1 text-xs" title={url}>
            {url}
          </code>
          <CopyButton value={url} label="Copy feed URL" />
          <Button variant="secondary" size="sm" onClick={() => setConfirming(true)}>
            Reset URL
          </Button>
        </div>
      ) : (
        <Button variant="secondary" size="sm" pending={reset.isPending} onClick={() => make().catch(() => undefined)}>
          Make my feed URL
        </Button>
      )}
      {reset.error && !confirming ? <Notice tone="error">{reset.error.message}</Notice> : null}
      {confirming ? (
        <ConfirmDialog
          title="Reset your calendar feed URL?"
          description="The current address stops working at once; calendars subscribed to it stop updating until you subscribe to the new one."
          confirmLabel="Reset URL"
          pending={reset.isPending}
          error={reset.error}
          onClose={() => setConfirming(false)}
          confirm={make}
        >
          {null}
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** The calendar: toolbar, grid (wide screens), the windows as a list (every width), and the feed. */
export function CalendarView() {
  const trpc = useTRPC();
  const params = useSearchParams();
  const query = parseCalendarParams(params);
  const go = useUrlInPlace();
  const data = useQuery({ ...trpc.calendar.get.queryOptions(query), placeholderData: keepPreviousData });
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const grid = useGridRepair();
  const set = (change: Partial<CalendarQuery>) => go(calendarHref({ ...query, ...change }));

  const calendar = data.data;
  const events: Event[] = useMemo(
    () => (calendar?.windows ?? []).map((w) => ({ title: `${w.overlap ? "⚠ " : ""}${w.reference} · ${w.organizationName}`, start: wall(w.startsAt), end: wall(w.endsAt), window: w })),
    [calendar],
  );
  // The week's grid opens at its first window's hour (08:00 without one): a Sunday 06:00 window is not scrolled out of sight.
  const firstHour = useMemo(() => {
    const hours = events.filter((e) => e.start.toDateString() === new Date(e.end.getTime() - 1).toDateString()).map((e) => e.start.getHours());
    return hours.length ? Math.min(...hours) : 8;
  }, [events]);
  const eventProps: EventPropGetter<Event> = (e) => ({
    className: cn(
      "!text-xs",
      e.window.status === "accepted" ? "!bg-sky-700 !border-sky-800" : "!bg-white !text-sky-900 !border-dashed !border-sky-600",
      e.window.overlap && "!border-2 !border-red-600",
    ),
  });
  const selected = calendar?.windows.find((w) => w.id === selectedId) ?? null;
  if (!calendar) return data.error ? <Notice tone="error">{data.error.message}</Notice> : null;

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-2">
        <div className="inline-flex items-center gap-1">
          <Button variant="secondary" size="sm" onClick={() => set({ day: stepDay(query.view, query.day, -1) })} aria-label={`Previous ${query.view}`}>
            ‹
          </Button>
          <Button variant="secondary" size="sm" onClick={() => set({ day: todayUtc() })}>
            Today
          </Button>
          <Button variant="secondary" size="sm" onClick={() => set({ day: stepDay(query.view, query.day, 1) })} aria-label={`Next ${query.view}`}>
            ›
          </Button>
        </div>
        <p className="min-w-40 text-base font-semibold text-slate-900" aria-live="polite">
          {periodTitle(calendar.view, calendar.from, calendar.to, calendar.day)}
        </p>
        <div className="flex flex-wrap gap-2 sm:ml-auto">
          <Toggle label="View" value={query.view} options={[{ value: "week", label: "Week" }, { value: "month", label: "Month" }]} onChange={(view) => set({ view })} />
          <Toggle label="Whose windows" value={query.scope} options={[{ value: "mine", label: "Mine" }, { value: "everyone", label: "Everyone's" }]} onChange={(scope) => set({ scope })} />
        </div>
      </div>

      {calendar.flagged ? (
        <Notice tone="warning" title={`${calendar.flagged} ${calendar.flagged === 1 ? "window overlaps" : "windows overlap"} on a shared service target`}>
          Their migrations together need more requests than the target&apos;s limits allow in their time. Each is explained below.
        </Notice>
      ) : null}

      <div ref={grid} className={cn("hidden rounded-md border border-slate-200 bg-white p-2 md:block", data.isPlaceholderData && "opacity-60")}>
        <BigCalendar<Event>
          localizer={localizer}
          culture="en-GB"
          events={events}
          view={calendar.view}
          views={["week", "month"]}
          date={wall(new Date(`${calendar.day}T00:00:00Z`))}
          onNavigate={() => undefined}
          onView={() => undefined}
          toolbar={false}
          popup
          step={60}
          timeslots={1}
          scrollToTime={new Date(1970, 0, 1, firstHour)}
          eventPropGetter={eventProps}
          tooltipAccessor={(e) => `${e.window.reference} (${e.window.status === "accepted" ? "agreed" : "proposed"}): ${e.window.target.name}, ${requestsText(e.window)}${e.window.overlap ? `. ${e.window.overlap.text}` : ""}`}
          onSelectEvent={(e) => setSelectedId(e.window.id)}
          formats={{ dateFormat: "d" }}
          style={{ height: calendar.view === "month" ? 720 : 620 }}
        />
      </div>

      {selected ? <WindowDetail w={selected} onClose={() => setSelectedId(null)} /> : null}

      {calendar.windows.length ? (
        <ResponsiveTable
          caption={`Windows, ${periodTitle(calendar.view, calendar.from, calendar.to, calendar.day)}`}
          captionVisible
          columns={columns()}
          rows={calendar.windows}
          rowKey={(w) => w.id}
        />
      ) : (
        <EmptyState title={query.scope === "mine" ? "No windows of yours in this period" : "No windows in this period"}>
          {query.scope === "mine" ? "Windows of engagements you own appear here once proposed. Everyone's shows the whole team's." : "Windows appear here once support proposes them on an engagement's step 2."}
        </EmptyState>
      )}

      <FeedPanel />
    </div>
  );
}
