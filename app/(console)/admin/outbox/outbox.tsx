"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Badge, Button, EmptyState, Notice, ProgressBar } from "@/app/_components/ui";
import { formatDateTime } from "@/app/_lib/labels";
import { linkify } from "@/app/_lib/linkify";
import { toFormError } from "@/app/_lib/trpc-error";
import { useTRPC } from "@/app/_trpc/react";

export function Outbox() {
  const trpc = useTRPC();
  const mail = useQuery(trpc.outbox.list.queryOptions({ limit: 50 }));
  if (mail.error) return <Notice tone="error">{toFormError(mail.error).message}</Notice>;
  if (!mail.data) return <ProgressBar label="Loading the outbox" />;
  return (
    <div className="space-y-4">
      <div className="flex items-center justify-between gap-3">
        <p className="text-sm text-slate-600">Showing the latest {mail.data.length} messages.</p>
        <Button variant="secondary" size="sm" pending={mail.isFetching} onClick={() => mail.refetch()}>
          Refresh
        </Button>
      </div>
      {!mail.data.length ? <EmptyState title="The outbox is empty">Invitations you send appear here.</EmptyState> : null}
      <ol className="space-y-3" aria-label="Messages, newest first">
        {mail.data.map((m) => (
          <li key={m.id}>
            <article aria-label={`Email to ${m.to}: ${m.subject}`} className="rounded-lg border border-slate-200 bg-white p-4 shadow-xs">
              <header className="flex flex-wrap items-start justify-between gap-2">
                <div>
                  <h2 className="font-semibold text-slate-900">{m.subject}</h2>
                  <p className="text-sm text-slate-600">
                    To <span className="font-medium text-slate-800">{m.to}</span> · {formatDateTime(m.createdAt)}
                  </p>
                </div>
                {m.error ? (
                  <Badge tone="danger">Not delivered</Badge>
                ) : m.sentAt ? (
                  <Badge tone="success">{m.transport === "smtp" ? "Sent by SMTP" : "In outbox"}</Badge>
                ) : (
                  <Badge tone="warning">Sending</Badge>
                )}
              </header>
              <MessageText id={m.id} text={m.text} canRevealLink={m.canRevealLink} />
              {m.error ? <p className="mt-2 text-sm text-red-700">Delivery error: {m.error}</p> : null}
            </article>
          </li>
        ))}
      </ol>
    </div>
  );
}

/** What stands where a one-time link was (server/mail/mailer.ts HIDDEN_LINK). */
const HIDDEN_LINK = "[one-time link hidden]";

/**
 * A message's text. One-time links are hidden in the stored copy; a pending invitation's link can
 * be revealed (the server records who looked), so the admin can pass it on.
 */
function MessageText({ id, text, canRevealLink }: { id: string; text: string; canRevealLink: boolean }) {
  const trpc = useTRPC();
  const reveal = useMutation(trpc.outbox.revealLink.mutationOptions());
  const shown = reveal.data?.text ?? text;
  return (
    <>
      <p className="mt-3 text-sm break-words whitespace-pre-wrap text-slate-800">
        {linkify(shown).map((part, i) =>
          part.kind === "link" ? (
            <a key={i} href={part.href} className="font-medium text-indigo-700 underline">
              {part.href}
            </a>
          ) : (
            <span key={i}>{part.text}</span>
          ),
        )}
      </p>
      {canRevealLink && !reveal.data ? (
        <div className="mt-3 flex flex-wrap items-center gap-3">
          <Button variant="secondary" size="sm" pending={reveal.isPending} onClick={() => reveal.mutate({ id })}>
            Show invitation link
          </Button>
          <span className="text-xs text-slate-600">The link is stored encrypted; showing it is recorded.</span>
        </div>
      ) : null}
      {!canRevealLink && text.includes(HIDDEN_LINK) ? (
        <p className="mt-2 text-xs text-slate-600">The link is not kept: it went out by email, or the invitation was used, withdrawn or has expired.</p>
      ) : null}
      {reveal.error ? (
        <Notice tone="error" className="mt-2">
          {toFormError(reveal.error).message}
        </Notice>
      ) : null}
    </>
  );
}
