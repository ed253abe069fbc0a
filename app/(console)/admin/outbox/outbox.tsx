"use client";
import { keepPreviousData, useMutation, useQuery } from "@tanstack/react-query";
import { useDeferredValue, useId, useState } from "react";
import { Badge, Button, EmptyState, Field, Input, Notice, Pagination, ProgressBar, Select } from "@/app/_components/ui";
import { formatDateTime } from "@/app/_lib/labels";
import { linkify } from "@/app/_lib/linkify";
import { toFormError } from "@/app/_lib/trpc-error";
import type { RouterOutputs } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { OUTBOX_STATUSES, type OutboxStatus } from "@/core/mail/schemas";

type Message = RouterOutputs["outbox"]["search"]["messages"][number];

/** Messages on one page of the outbox (the server prefetches the same first page). */
export const OUTBOX_PAGE_SIZE = 25;

const STATUS_LABEL: Record<OutboxStatus, string> = { delivered: "Delivered", failed: "Not delivered", sending: "Sending or retrying" };

/**
 * The outbox a page at a time, newest first: one line per message (subject, recipient, when,
 * where it stands) that opens to its text, searched on the server (a reference such as FER-1001
 * finds every message about that engagement) and filtered by where each stands.
 */
export function Outbox() {
  const trpc = useTRPC();
  const [search, setSearch] = useState("");
  const [status, setStatus] = useState<OutboxStatus | "">("");
  const [page, setPage] = useState(1);
  const deferred = useDeferredValue(search.trim());
  const input = { search: deferred || undefined, status: status || undefined, page, pageSize: OUTBOX_PAGE_SIZE };
  const mail = useQuery({ ...trpc.outbox.search.queryOptions(input), placeholderData: keepPreviousData });
  const data = mail.data;
  return (
    <div className="space-y-4">
      <form
        role="search"
        aria-label="Search the outbox"
        className="grid gap-3 sm:grid-cols-[minmax(0,2fr)_minmax(0,1fr)_auto] sm:items-start"
        onSubmit={(event) => event.preventDefault()}
      >
        <Field label="Search" hint="Recipient, subject or text, e.g. FER-1001">
          {(p) => (
            <Input
              {...p}
              type="search"
              value={search}
              onChange={(e) => {
                setSearch(e.target.value);
                setPage(1);
              }}
            />
          )}
        </Field>
        <Field label="Where it stands">
          {(p) => (
            <Select
              {...p}
              value={status}
              onChange={(e) => {
                setStatus(e.target.value as OutboxStatus | "");
                setPage(1);
              }}
            >
              <option value="">Every message</option>
              {OUTBOX_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {STATUS_LABEL[s]}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Button variant="secondary" className="sm:mt-7" pending={mail.isFetching} onClick={() => void mail.refetch()}>
          Refresh
        </Button>
      </form>
      {mail.error ? <Notice tone="error">{toFormError(mail.error).message}</Notice> : null}
      {!data ? (
        mail.error ? null : <ProgressBar label="Loading the outbox" />
      ) : data.total === 0 ? (
        <EmptyState title={input.search || input.status ? "No message matches" : "The outbox is empty"}>
          {input.search || input.status ? "Try other words, or every message." : "Invitations and the engagements' mail appear here."}
        </EmptyState>
      ) : (
        <>
          <ol aria-label="Messages, newest first" className="divide-y divide-slate-200 overflow-hidden rounded-lg border border-slate-200 bg-white shadow-xs">
            {data.messages.map((m) => (
              <MessageRow key={m.id} message={m} />
            ))}
          </ol>
          <Pagination page={data.page} pageSize={data.pageSize} total={data.total} onPageChange={setPage} noun={{ one: "message", other: "messages" }} />
        </>
      )}
    </div>
  );
}

function StatusBadge({ m }: { m: Message }) {
  switch (m.status) {
    case "delivered":
      return <Badge tone="success">{m.transport === "smtp" ? "Sent by SMTP" : "In outbox"}</Badge>;
    case "failed":
      return <Badge tone="danger">Not delivered</Badge>;
    case "sending":
      return <Badge tone="warning">{m.attempts > 0 && m.error ? "Retrying" : "Sending"}</Badge>;
    default: {
      const never: never = m.status;
      return never;
    }
  }
}

/** How delivery went, for a message not simply delivered at the first try: its attempts, last error and next try. */
function DeliveryNote({ m }: { m: Message }) {
  if (!m.error) return null;
  const attempts = `${m.attempts} ${m.attempts === 1 ? "attempt" : "attempts"}`;
  switch (m.status) {
    case "failed":
      return <p className="mt-2 text-sm text-red-700">Not delivered after {attempts}; the last error: {m.error}</p>;
    case "sending":
      return (
        <p className="mt-2 text-sm text-amber-800">
          {attempts} so far; the last error: {m.error}
          {m.nextAttemptAt ? <> Next try {formatDateTime(m.nextAttemptAt)}.</> : null}
        </p>
      );
    case "delivered":
      return null;
    default: {
      const never: never = m.status;
      return never;
    }
  }
}

/**
 * One message as a line that opens to its text (so a page of them stays a page, on a phone too).
 * A pending invitation's link can be shown from the line itself, the reason most people come here;
 * the server records who looked, and the message opens on it.
 */
function MessageRow({ message: m }: { message: Message }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  const reveal = useMutation(trpc.outbox.revealLink.mutationOptions({ onSuccess: () => setOpen(true) }));
  const text = reveal.data?.text ?? m.text;
  return (
    <li>
      <article aria-label={`Email to ${m.to}: ${m.subject}`} className="px-4 py-3">
        <div className="flex flex-wrap items-start justify-between gap-x-4 gap-y-1">
          <h2 className="min-w-0 flex-[1_1_14rem] text-sm font-semibold break-words text-slate-900">
            <button
              type="button"
              aria-expanded={open}
              aria-controls={bodyId}
              onClick={() => setOpen((o) => !o)}
              className="inline-flex max-w-full items-start gap-1.5 text-left hover:text-indigo-700 focus-visible:outline-2 focus-visible:outline-indigo-600"
            >
              <svg viewBox="0 0 20 20" aria-hidden="true" className={`mt-0.5 size-4 shrink-0 transition-transform ${open ? "rotate-90" : ""}`} fill="currentColor">
                <path d="M7.2 4.7a.75.75 0 0 1 1.06 0l4.77 4.77a.75.75 0 0 1 0 1.06l-4.77 4.77a.75.75 0 1 1-1.06-1.06L11.44 10 7.2 5.76a.75.75 0 0 1 0-1.06Z" />
              </svg>
              <span>{m.subject}</span>
            </button>
          </h2>
          <span className="flex flex-wrap items-center gap-2">
            {m.canRevealLink && !reveal.data ? (
              <Button variant="secondary" size="sm" pending={reveal.isPending} onClick={() => reveal.mutate({ id: m.id })}>
                Show invitation link
              </Button>
            ) : null}
            <StatusBadge m={m} />
          </span>
        </div>
        <p className="mt-0.5 pl-5.5 text-sm break-all text-slate-600">
          To <span className="font-medium text-slate-800">{m.to}</span> · <span className="whitespace-nowrap">{formatDateTime(m.createdAt)}</span>
        </p>
        {reveal.error ? (
          <Notice tone="error" className="mt-2">
            {toFormError(reveal.error).message}
          </Notice>
        ) : null}
        <div id={bodyId} hidden={!open} className="pl-5.5">
          <MessageText text={text} canRevealLink={m.canRevealLink} revealed={!!reveal.data} />
          <DeliveryNote m={m} />
        </div>
      </article>
    </li>
  );
}

/** What stands where a one-time link was (server/mail/mailer.ts HIDDEN_LINK). */
const HIDDEN_LINK = "[one-time link hidden]";

/** A message's text, its links made links; where a one-time link was, whether it can still be shown. */
function MessageText({ text, canRevealLink, revealed }: { text: string; canRevealLink: boolean; revealed: boolean }) {
  return (
    <>
      <p className="mt-3 text-sm break-words whitespace-pre-wrap text-slate-800">
        {linkify(text).map((part, i) =>
          part.kind === "link" ? (
            <a key={i} href={part.href} className="font-medium text-indigo-700 underline">
              {part.href}
            </a>
          ) : (
            <span key={i}>{part.text}</span>
          ),
        )}
      </p>
      {canRevealLink && !revealed ? <p className="mt-2 text-xs text-slate-600">The link is stored encrypted; showing it (above) is recorded.</p> : null}
      {!canRevealLink && text.includes(HIDDEN_LINK) ? (
        <p className="mt-2 text-xs text-slate-600">The link is not kept: it went out by email, or the invitation was used, withdrawn or has expired.</p>
      ) : null}
    </>
  );
}
