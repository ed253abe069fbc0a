"use client";
import { keepPreviousData, useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useFlowInvalidation } from "@/app/_components/engagement/use-flow-invalidation";
import { PreviewTable, ProblemTable } from "@/app/_components/intake/problems";
import { ConfirmDialog } from "@/app/_components/confirm-dialog";
import { TextDialog } from "@/app/_components/text-dialog";
import { Badge, Button, Notice, Pagination, ProgressBar, Table, TBody, Td, Th, THead, Tr } from "@/app/_components/ui";
import type { Announce } from "@/app/_components/use-announcement";
import { formatDateTime } from "@/app/_lib/labels";
import { toFormError } from "@/app/_lib/trpc-error";
import type { EngagementDetail, IntakeView, StepView, SubmissionView } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { companiesText, warningsText } from "@/core/words";

const STATUS: Record<SubmissionView["status"], { label: string; tone: "info" | "success" | "warning" | "muted" }> = {
  submitted: { label: "Awaiting review", tone: "info" },
  accepted: { label: "Accepted", tone: "success" },
  returned: { label: "Sent back", tone: "warning" },
  replaced: { label: "Replaced", tone: "muted" },
};

/** Step 1 in the console: support reviews the customer's submission and accepts it or sends it back. */
export function ConsoleStep1Panel({ engagement, announce }: { engagement: EngagementDetail; step: StepView; announce: Announce }) {
  const trpc = useTRPC();
  const intake = useQuery(trpc.intake.get.queryOptions({ engagementId: engagement.id }));
  const view = intake.data;
  if (!view) return intake.error ? <Notice tone="error">{toFormError(intake.error).message}</Notice> : <ProgressBar label="Loading the submission" size="sm" />;
  if (!view.current) {
    return <p className="text-sm text-slate-600">Nothing submitted yet: the customer submits their OAuth app&apos;s details and the token file in the portal.</p>;
  }
  return (
    <div className="space-y-4">
      <Review engagement={engagement} view={view} submission={view.current} announce={announce} />
      {view.history.length ? (
        <details className="text-sm">
          <summary className="cursor-pointer font-medium text-indigo-800">Earlier submissions ({view.history.length})</summary>
          <ul className="mt-2 space-y-1">
            {view.history.map((h) => (
              <li key={h.id}>
                {h.fileName}: {companiesText(h.rowCount)}, submitted by {h.submittedBy?.name ?? "—"} on {formatDateTime(h.submittedAt)} ·{" "}
                {STATUS[h.status].label}
                {h.returnNote ? ` (“${h.returnNote}”)` : ""}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}

function Review({ engagement, view, submission: s, announce }: { engagement: EngagementDetail; view: IntakeView; submission: SubmissionView; announce: Announce }) {
  const trpc = useTRPC();
  const invalidate = useFlowInvalidation(engagement.id);
  const [returning, setReturning] = useState(false);
  const [accepting, setAccepting] = useState(false);
  const accept = useMutation(trpc.intake.accept.mutationOptions());
  const returnIt = useMutation(trpc.intake.return.mutationOptions());
  return (
    <section aria-label="Submission under review" className="space-y-4 rounded-md border border-slate-200 p-4">
      <div className="flex flex-wrap items-center gap-2">
        <h4 className="font-semibold text-slate-900">{s.fileName}</h4>
        <Badge tone={STATUS[s.status].tone}>{STATUS[s.status].label}</Badge>
      </div>
      <dl className="grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
        <dt className="font-medium text-slate-700">Submitted</dt>
        <dd>
          by {s.submittedBy?.name ?? "—"} on {formatDateTime(s.submittedAt)}
          {s.replacedItemCount !== null ? ` (replacing a file of ${companiesText(s.replacedItemCount)})` : ""}
        </dd>
        <dt className="font-medium text-slate-700">Companies</dt>
        <dd>
          {s.rowCount.toLocaleString("en-GB")} ({s.fileKind.toUpperCase()})
        </dd>
        <dt className="font-medium text-slate-700">Warnings</dt>
        <dd>{s.warningCount.toLocaleString("en-GB")}</dd>
        <dt className="font-medium text-slate-700">OAuth client id</dt>
        <dd className="font-mono text-xs">{s.clientId}</dd>
        <dt className="font-medium text-slate-700">Client secret</dt>
        <dd className="font-mono text-xs">{s.clientSecretMasked}</dd>
        <dt className="font-medium text-slate-700">Contacts</dt>
        <dd>{s.contacts.map((c) => `${c.name} <${c.email}>`).join(", ")}</dd>
        {s.reviewedAt ? (
          <>
            <dt className="font-medium text-slate-700">Reviewed</dt>
            <dd>
              by {s.reviewedBy?.name ?? "—"} on {formatDateTime(s.reviewedAt)}
              {s.returnNote ? `: “${s.returnNote}”` : ""}
            </dd>
          </>
        ) : null}
      </dl>
      <ProblemTable problems={s.warnings} counts={s.countsByKind} caption="Warnings in the file, by line" more={Math.max(0, s.warningCount - s.warnings.length)} />
      <PreviewTable preview={s.preview} caption="First rows (secrets masked)" />
      <ItemsTable engagementId={engagement.id} />
      <div className="flex flex-wrap gap-2">
        <Button
          disabled={!view.accept.allowed}
          aria-describedby={view.accept.allowed ? undefined : "accept-why"}
          onClick={() => {
            accept.reset();
            setAccepting(true);
          }}
        >
          Accept submission
        </Button>
        <Button variant="secondary" disabled={!view.return.allowed} onClick={() => setReturning(true)}>
          Send back
        </Button>
      </div>
      {!view.accept.allowed && view.accept.reason ? (
        <p id="accept-why" className="text-sm text-slate-600">
          {view.accept.reason}
        </p>
      ) : null}
      {accepting ? (
        <ConfirmDialog
          title={`Accept ${s.fileName}?`}
          description={`${companiesText(s.rowCount)}, ${warningsText(s.warningCount)}, from ${s.submittedBy?.name ?? "the customer"}.`}
          confirmLabel="Accept submission"
          cancelLabel="Not yet"
          pending={accept.isPending}
          error={accept.error}
          onClose={() => setAccepting(false)}
          confirm={async () => {
            await accept.mutateAsync({ engagementId: engagement.id, submissionId: s.id });
            await invalidate();
            setAccepting(false);
            announce({ tone: "success", text: `Accepted ${s.fileName}. Step 1 is done.` });
          }}
        >
          <p>Step 1 is done once you accept: these companies are what the single-company test and the bulk migration move, and the customer is mailed that the file is accepted.</p>
          <p>Until the migration starts you can still send it back.</p>
        </ConfirmDialog>
      ) : null}
      {returning ? (
        <TextDialog
          title={`Send back ${s.fileName}`}
          description={s.status === "accepted" ? "The accepted file goes back to the customer: step 1 reopens, and the steps gated on it with it." : "The customer sees this note in the portal and is mailed it."}
          label="What should the customer fix?"
          required
          hint="Be specific: the lines, the columns, what to send instead."
          field="note"
          submitLabel="Send back"
          variant="danger"
          pending={returnIt.isPending}
          onClose={() => setReturning(false)}
          submit={async (note) => {
            await returnIt.mutateAsync({ engagementId: engagement.id, submissionId: s.id, note: note ?? "" });
            await invalidate();
            setReturning(false);
            announce({ tone: "success", text: `Sent ${s.fileName} back to the customer.` });
          }}
        />
      ) : null}
    </section>
  );
}

const ITEMS_PAGE = 25;

/** Every submitted company as stored: where it was in the file, its name and masked credentials. */
function ItemsTable({ engagementId }: { engagementId: string }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const [page, setPage] = useState(1);
  const items = useQuery({ ...trpc.intake.items.queryOptions({ engagementId, page, pageSize: ITEMS_PAGE }), enabled: open, placeholderData: keepPreviousData });
  return (
    <details className="text-sm" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary className="cursor-pointer font-medium text-indigo-800">All companies, as stored (masked)</summary>
      <div className="mt-2 space-y-2">
        {items.data ? (
          <>
            <Table scrollable caption="Companies in the submission">
              <THead>
                <Tr>
                  <Th>#</Th>
                  <Th>Where</Th>
                  <Th>Company</Th>
                  <Th>Reference</Th>
                  <Th>Records</Th>
                  <Th>Credentials (masked)</Th>
                </Tr>
              </THead>
              <TBody>
                {items.data.items.map((i) => (
                  <Tr key={i.id}>
                    <Td>{i.position + 1}</Td>
                    <Td className="whitespace-nowrap text-slate-600">{i.sourceRef}</Td>
                    <Td>{i.name}</Td>
                    <Td>{i.externalRef ?? "—"}</Td>
                    <Td>{i.recordsHint?.toLocaleString("en-GB") ?? "—"}</Td>
                    <Td className="font-mono text-xs">
                      {Object.entries(i.credentialsMask)
                        .map(([k, v]) => `${k} ${v}`)
                        .join(" · ")}
                    </Td>
                  </Tr>
                ))}
              </TBody>
            </Table>
            <Pagination page={items.data.page} pageSize={items.data.pageSize} total={items.data.total} noun={{ one: "company", other: "companies" }} onPageChange={setPage} />
          </>
        ) : open ? (
          <ProgressBar label="Loading companies" size="sm" />
        ) : null}
      </div>
    </details>
  );
}
