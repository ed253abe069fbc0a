"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useFlowInvalidation } from "@/app/_components/engagement/use-flow-invalidation";
import { Button, CopyableId, CopyButton, Notice, buttonClasses } from "@/app/_components/ui";
import type { Announce } from "@/app/_components/use-announcement";
import { formatDateTime } from "@/app/_lib/labels";
import { toFormError } from "@/app/_lib/trpc-error";
import type { CallbackCheckView, EngagementDetail } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";

/** How often an open round trip is asked about while the page is shown, and for how long before a person asks again (each ask is a request of the target's quota). */
const REFRESH_MS = 4_000;
const AUTO_REFRESH_FOR_MS = 10 * 60_000;

/**
 * Step 3 proven by a round trip (console and portal alike): start it, open the test link and
 * authorize with any account of the platform; Ferry asks the service every few seconds while the
 * page is open and shows what the platform did. A refusal names what to fix; proof completes step 3.
 */
export function CallbackRoundTrip({ engagement, callbackUrl, announce, done }: { engagement: EngagementDetail; callbackUrl: string; announce: Announce; done: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const input = { engagementId: engagement.id };
  const invalidate = useFlowInvalidation(engagement.id);
  const check = useQuery(trpc.confirmations.callbackCheck.queryOptions(input));
  const key = trpc.confirmations.callbackCheck.queryKey(input);
  const onView = async (v: CallbackCheckView) => {
    const before = queryClient.getQueryData<CallbackCheckView>(key)?.status;
    queryClient.setQueryData(key, v);
    if (v.status === "proven" && before !== "proven") {
      await invalidate();
      announce({ tone: "success", text: "The round trip proved the callback URL: step 3 is done." });
    }
  };
  const onError = (e: unknown) => announce({ tone: "error", text: toFormError(e).message });
  const start = useMutation(trpc.confirmations.startCallbackCheck.mutationOptions({ onSuccess: onView, onError }));
  const refresh = useMutation(trpc.confirmations.refreshCallbackCheck.mutationOptions({ onSuccess: onView }));
  const cancel = useMutation(trpc.confirmations.cancelCallbackCheck.mutationOptions({ onSuccess: onView, onError }));
  const status = check.data?.status;
  const open = status === "waiting" || status === "refused";
  const auto = useRefreshWhileOpen(open, check.data?.startedAt ?? null, () => refresh.mutate(input));
  const v = check.data;
  if (!v) return null;
  if (done && v.status !== "proven") return null;
  return (
    <section aria-labelledby={`round-trip-${engagement.id}`} className="space-y-3 rounded-md border border-slate-200 p-3 text-sm">
      <h3 id={`round-trip-${engagement.id}`} className="font-semibold text-slate-900">
        Prove it with a round trip
      </h3>
      {v.status === "proven" ? <Proven v={v} /> : null}
      {v.status === "none" || v.status === "cancelled" || v.status === "failed" ? <Intro platform={engagement.platform.name} /> : null}
      {v.caveat && v.status !== "proven" ? (
        <Notice tone="warning" title="Which account to authorize with">
          {v.caveat}
        </Notice>
      ) : null}
      {v.status === "failed" && v.error ? <Failed v={v} /> : null}
      {v.status === "refused" ? <Refused v={v} callbackUrl={callbackUrl} /> : null}
      {open ? <Waiting v={v} platform={engagement.platform.name} refreshing={refresh.isPending} /> : null}
      {open && !auto.running ? (
        <p className="text-slate-600">
          Ferry stopped asking after 10 minutes.{" "}
          <Button size="sm" variant="secondary" pending={refresh.isPending} onClick={auto.restart}>
            Check now
          </Button>
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        {!open && v.status !== "proven" ? (
          v.canStart ? (
            <Button size="sm" pending={start.isPending} onClick={() => start.mutate(input)}>
              {v.status === "none" ? "Start the round trip" : "Start a new round trip"}
            </Button>
          ) : v.cannotStart ? (
            <p className="text-slate-600">{v.cannotStart}</p>
          ) : null
        ) : null}
        {open ? (
          <Button size="sm" variant="secondary" pending={cancel.isPending} onClick={() => cancel.mutate(input)}>
            Cancel the round trip
          </Button>
        ) : null}
      </div>
    </section>
  );
}

/**
 * Asks again every few seconds while the check is open and the page is shown (at once when it is
 * shown again), for 10 minutes from when the page opened or the check started, whichever is later;
 * `restart` asks now and for another 10 minutes.
 */
function useRefreshWhileOpen(open: boolean, startedAt: Date | null, ask: () => void): { running: boolean; restart: () => void } {
  const askRef = useRef(ask);
  const [since, setSince] = useState(() => Date.now());
  /** The start of the span whose 10 minutes ran out (asking stops until a new span begins). */
  const [stoppedFor, setStoppedFor] = useState<number | null>(null);
  useEffect(() => {
    askRef.current = ask;
  });
  const from = Math.max(since, startedAt?.getTime() ?? 0);
  const running = stoppedFor !== from;
  useEffect(() => {
    if (!open || !running) return;
    const tick = () => {
      if (Date.now() - from > AUTO_REFRESH_FOR_MS) setStoppedFor(from);
      else if (document.visibilityState === "visible") askRef.current();
    };
    tick();
    const timer = window.setInterval(tick, REFRESH_MS);
    document.addEventListener("visibilitychange", tick);
    return () => {
      window.clearInterval(timer);
      document.removeEventListener("visibilitychange", tick);
    };
  }, [open, running, from]);
  return {
    running,
    restart: () => setSince(Date.now()),
  };
}

function Intro({ platform }: { platform: string }) {
  return (
    <p className="text-slate-700">
      Ferry makes a test connection on the service and gives you its link. Authorize it with any {platform} account of yours (a test company will do). If it
      links, {platform} sent the authorization to the callback URL, which proves the URL is on your app. Ferry then deletes the test company.
    </p>
  );
}

function Waiting({ v, platform, refreshing }: { v: CallbackCheckView; platform: string; refreshing: boolean }) {
  return (
    <div className="space-y-2">
      {v.linkUrl ? (
        <a href={v.linkUrl} target="_blank" rel="noopener noreferrer" className={buttonClasses({ size: "sm" })}>
          {v.status === "refused" ? "Open the test link again" : `Open the test link and authorize on ${platform}`}
        </a>
      ) : (
        <p className="text-slate-600">The test connection is being made…</p>
      )}
      <p role="status" aria-live="polite" className="text-slate-600">
        {v.status === "refused" ? "Waiting for another try" : "Waiting for the authorization"}
        {v.checkedAt ? `; last asked ${formatDateTime(v.checkedAt)}` : ""}
        {refreshing ? " (asking now…)" : ""}
      </p>
      {v.error ? <ServiceErrorLine error={v.error} /> : null}
    </div>
  );
}

function Refused({ v, callbackUrl }: { v: CallbackCheckView; callbackUrl: string }) {
  return (
    <Notice tone="error" title="The platform refused to send the authorization to the callback URL" className="wrap-anywhere">
      <p>“{v.refusal}”</p>
      <p className="mt-2">{v.fix}</p>
      <p className="mt-2 flex flex-wrap items-center gap-1">
        <code className="rounded bg-white/70 px-1.5 py-0.5 text-xs break-all">{callbackUrl}</code>
        <CopyButton value={callbackUrl} label="callback URL" />
      </p>
      {v.consoleUrl ? (
        <p className="mt-2">
          <a href={v.consoleUrl} target="_blank" rel="noopener noreferrer" className="font-medium underline">
            Open your app in the sandbox&apos;s developer console
          </a>
        </p>
      ) : null}
    </Notice>
  );
}

function Failed({ v }: { v: CallbackCheckView }) {
  if (!v.error) return null;
  return (
    <Notice tone="error" title="The round trip could not be made">
      <ServiceErrorLine error={v.error} />
      <p className="mt-2">You can try again, or confirm by hand below: the step is then recorded as unproven.</p>
    </Notice>
  );
}

function ServiceErrorLine({ error }: { error: NonNullable<CallbackCheckView["error"]> }) {
  return (
    <p className="wrap-anywhere text-red-800">
      {error.status !== null ? <span className="font-semibold">{error.status} </span> : null}
      {error.text}
      {error.correlationId ? (
        <span className="text-slate-700">
          {" "}
          · correlationId <CopyableId value={error.correlationId} label="correlationId of the round trip's call" />
        </span>
      ) : null}
    </p>
  );
}

function Proven({ v }: { v: CallbackCheckView }) {
  return (
    <Notice tone="success" title="Proven by a round trip">
      The test connection linked{v.finishedAt ? ` ${formatDateTime(v.finishedAt)}` : ""}: the platform sent the authorization to the callback URL, so it is on the app.{" "}
      {v.companyDeleted ? "The test company was deleted." : "The test company is being deleted."}
    </Notice>
  );
}
