"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { FileFacts, FileRows, FreshTokensSection, SUPPLEMENTARY_STATUS, WaitingCompanies } from "@/app/_components/supplementary/supplementary-parts";
import { ConfirmDialog } from "@/app/_components/confirm-dialog";
import { TextDialog } from "@/app/_components/text-dialog";
import { Badge, Button } from "@/app/_components/ui";
import type { Announce } from "@/app/_components/use-announcement";
import { formatDateTime } from "@/app/_lib/labels";
import type { SupplementaryFileView, SupplementaryView } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { companiesText as companies, plural } from "@/core/words";

/**
 * Step 6 in the console, after the bulk run: the customer's fresh tokens for the companies that
 * failed on theirs. Support reviews the file (its companies, warnings by line, masked values, who
 * sent it when) and accepts it — those companies are retried in the bulk run — or sends it back
 * with a note the customer is mailed. Nothing shows while no company needs fresh tokens and no
 * file was sent.
 */
export function FreshTokensReview({ engagementId, announce }: { engagementId: string; announce: Announce }) {
  return (
    <FreshTokensSection engagementId={engagementId}>
      {(v) => (
        <>
          {v.current ? (
            <Review engagementId={engagementId} view={v} file={v.current} announce={announce} />
          ) : (
            <p className="text-sm text-slate-600">No file of fresh tokens yet: the customer can send one in the portal for the companies below.</p>
          )}
          {v.waiting.total ? <WaitingCompanies waiting={v.waiting} caption="Companies waiting for fresh tokens" /> : null}
          {v.history.length ? (
            <details className="text-sm">
              <summary className="cursor-pointer font-medium text-indigo-800">Earlier files ({v.history.length})</summary>
              <ul className="mt-2 space-y-1">
                {v.history.map((h) => (
                  <li key={h.id}>
                    {h.fileName}: {companies(h.rowCount)}, sent by {h.submittedBy?.name ?? "—"} on {formatDateTime(h.submittedAt)} · {SUPPLEMENTARY_STATUS[h.status].label}
                    {h.note ? ` (“${h.note}”)` : ""}
                  </li>
                ))}
              </ul>
            </details>
          ) : null}
        </>
      )}
    </FreshTokensSection>
  );
}

function Review({ engagementId, view, file, announce }: { engagementId: string; view: SupplementaryView; file: SupplementaryFileView; announce: Announce }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [returning, setReturning] = useState(false);
  const [accepting, setAccepting] = useState(false);
  const input = { engagementId };
  const invalidate = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.supplementary.get.queryKey(input) }),
      queryClient.invalidateQueries({ queryKey: trpc.bulk.overview.queryKey(input) }),
      queryClient.invalidateQueries({ queryKey: trpc.bulk.items.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.engagements.get.queryKey(input) }),
      queryClient.invalidateQueries({ queryKey: trpc.engagements.timeline.queryKey(input) }),
    ]);
  const accept = useMutation(trpc.supplementary.accept.mutationOptions());
  const sendBack = useMutation(trpc.supplementary.sendBack.mutationOptions());
  return (
    <div className="space-y-4" aria-label="File of fresh tokens under review" role="group">
      <div className="flex flex-wrap items-center gap-2">
        <h5 className="font-semibold break-all text-slate-900">{file.fileName}</h5>
        <Badge tone={SUPPLEMENTARY_STATUS[file.status].tone}>{SUPPLEMENTARY_STATUS[file.status].label}</Badge>
      </div>
      <FileFacts file={file} />
      <FileRows file={file} />
      {file.status === "submitted" ? (
        <>
          <p className="text-sm text-slate-700">
            Accepting gives each company its fresh tokens and retries it in the bulk migration (authorize, sync, verify); the tokens are deleted once its retry has ended.
          </p>
          <div className="flex flex-wrap gap-2">
            <Button
              disabled={!view.accept.allowed}
              aria-describedby={view.accept.allowed ? undefined : "fresh-accept-why"}
              onClick={() => {
                accept.reset();
                setAccepting(true);
              }}
            >
              Accept and retry
            </Button>
            <Button variant="secondary" disabled={!view.sendBack.allowed} onClick={() => setReturning(true)}>
              Send back
            </Button>
          </div>
          {!view.accept.allowed && view.accept.reason ? (
            <p id="fresh-accept-why" className="text-sm text-slate-600">
              {view.accept.reason}
            </p>
          ) : null}
        </>
      ) : null}
      {accepting ? (
        <ConfirmDialog
          title={`Accept ${file.fileName}?`}
          description={`Fresh tokens for ${companies(file.rowCount)}, sent by ${file.submittedBy?.name ?? "the customer"}.`}
          confirmLabel="Accept and retry"
          cancelLabel="Not yet"
          pending={accept.isPending}
          error={accept.error}
          onClose={() => setAccepting(false)}
          confirm={async () => {
            const r = await accept.mutateAsync({ engagementId, fileId: file.id });
            await invalidate();
            setAccepting(false);
            announce({
              tone: "success",
              text: `Accepted ${file.fileName}: retrying ${companies(r.companies)} in the bulk migration${r.skipped ? `; ${companies(r.skipped)} no longer waited for tokens and ${plural(r.skipped, { one: "was", other: "were" })} skipped` : ""}.`,
            });
          }}
        >
          <p>Each company gets its fresh tokens and is retried in the bulk migration at once (authorize, sync, verify); the customer is mailed. This cannot be undone: the file can no longer be sent back.</p>
        </ConfirmDialog>
      ) : null}
      {returning ? (
        <TextDialog
          title={`Send back ${file.fileName}`}
          description="The customer sees this note in the portal and is mailed it; the tokens in the file are deleted."
          label="What should the customer fix?"
          required
          hint="Be specific: the lines, the companies, what to send instead."
          field="note"
          submitLabel="Send back"
          variant="danger"
          pending={sendBack.isPending}
          onClose={() => setReturning(false)}
          submit={async (note) => {
            await sendBack.mutateAsync({ engagementId, fileId: file.id, note: note ?? "" });
            await invalidate();
            setReturning(false);
            announce({ tone: "success", text: `Sent ${file.fileName} back to the customer.` });
          }}
        />
      ) : null}
    </div>
  );
}
