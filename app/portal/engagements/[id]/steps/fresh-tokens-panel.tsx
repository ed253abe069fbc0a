"use client";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { CheckResult } from "@/app/_components/intake/check-result";
import { postForm } from "@/app/_components/intake/post-form";
import { FileFacts, FileRows, MatchedCompanies, RETRY_POLL_MS, retrying, WaitingCompanies } from "@/app/_components/supplementary/supplementary-parts";
import { Button, Field, Notice, ProgressBar } from "@/app/_components/ui";
import type { Announce } from "@/app/_components/use-announcement";
import { toFormError } from "@/app/_lib/trpc-error";
import type { SupplementaryCheck, SupplementaryFileView, SupplementaryView } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { companies } from "@/core/migration/state-words";

const megabytes = (bytes: number) => `${Math.round(bytes / 1048576)} MB`;


/**
 * Step 6 in the portal, after the bulk run: the companies that failed on their tokens, and a file
 * of fresh tokens for them — checked when chosen (nothing stored), sent for support's review, then
 * retried in the bulk migration once accepted. Nothing shows while no company needs fresh tokens
 * and no file was sent.
 */
export function FreshTokensPanel({ engagementId, announce }: { engagementId: string; announce: Announce }) {
  const trpc = useTRPC();
  const view = useQuery(trpc.supplementary.get.queryOptions({ engagementId }, { refetchInterval: (q) => (retrying(q.state.data) ? RETRY_POLL_MS : false) }));
  const v = view.data;
  if (!v) return view.error ? <Notice tone="error">{toFormError(view.error).message}</Notice> : null;
  if (!v.waiting.total && !v.current) return null;
  return (
    <section aria-labelledby="fresh-tokens-title" className="space-y-4 rounded-md border border-slate-200 p-4">
      <h4 id="fresh-tokens-title" className="text-sm font-semibold text-slate-900">
        Fresh tokens for companies that failed
      </h4>
      {v.current ? <FileStatus file={v.current} /> : null}
      {v.waiting.total ? (
        <>
          <p className="text-sm text-slate-700">
            {companies(v.waiting.total)} failed on {v.waiting.total === 1 ? "its" : "their"} tokens: the platform refused the tokens in your file (your old app may have
            refreshed them after the export). Export fresh tokens for {v.waiting.total === 1 ? "it" : "them"} from your app and send them here, one row per company with
            its externalRef (or its name as in your first file): Ferry support reviews the file, then the bulk migration retries just these companies.
          </p>
          <WaitingCompanies waiting={v.waiting} caption="Companies that need fresh tokens" />
        </>
      ) : null}
      {v.submit.allowed ? <SendForm engagementId={engagementId} view={v} announce={announce} /> : v.waiting.total && v.submit.reason ? <p className="text-sm text-slate-600">{v.submit.reason}</p> : null}
      {v.current ? (
        <details className="text-sm">
          <summary className="cursor-pointer font-medium text-indigo-800">
            The file you sent: {v.current.fileName} ({companies(v.current.rowCount)})
          </summary>
          <div className="mt-2 space-y-3">
            <FileFacts file={v.current} />
            <FileRows file={v.current} />
          </div>
        </details>
      ) : null}
    </section>
  );
}

function FileStatus({ file }: { file: SupplementaryFileView }) {
  const what = `${file.fileName}: ${companies(file.rowCount)}.`;
  switch (file.status) {
    case "submitted":
      return (
        <Notice tone="info" title="Fresh tokens sent: Ferry support is reviewing them">
          {what}
        </Notice>
      );
    case "accepted":
      return (
        <Notice tone="success" title="Fresh tokens accepted: the companies are being retried">
          {what} Follow them in the bulk migration above. Ferry deletes the fresh tokens once each company&apos;s retry has ended.
        </Notice>
      );
    case "returned":
      return (
        <Notice tone="warning" title={`Sent back by ${file.decidedBy?.name ?? "support"}: fix it and send it again`}>
          <p className="font-medium whitespace-pre-line">{file.note}</p>
          <p className="mt-1">{what} The tokens in it were deleted.</p>
        </Notice>
      );
    case "replaced":
      return null;
    default: {
      const never: never = file.status;
      return never;
    }
  }
}

function SendForm({ engagementId, view, announce }: { engagementId: string; view: SupplementaryView; announce: Announce }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // Remounting the file input (a new key) is how it is emptied after a file was sent.
  const [fileKey, setFileKey] = useState(0);
  const [file, setFile] = useState<File | null>(null);
  const [check, setCheck] = useState<SupplementaryCheck | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [busy, setBusy] = useState<{ what: string; sent: number } | null>(null);
  const base = `/api/engagements/${engagementId}/supplementary-file`;

  async function checkFile(chosen: File | null) {
    setFile(chosen);
    setCheck(null);
    setFileError(null);
    if (!chosen) return;
    const body = new FormData();
    body.set("file", chosen);
    setBusy({ what: `Checking ${chosen.name}`, sent: 0 });
    const answer = await postForm<SupplementaryCheck>(`${base}/check`, body, (sent) => setBusy({ what: `Checking ${chosen.name}`, sent }));
    setBusy(null);
    if (answer.check) setCheck(answer.check);
    else setFileError(answer.error?.fields?.file ?? answer.error?.message ?? "The file could not be checked.");
  }

  async function send() {
    if (!file) {
      setFileError("Choose the file of fresh tokens to send.");
      return;
    }
    const body = new FormData();
    body.set("file", file);
    setBusy({ what: `Sending ${file.name}`, sent: 0 });
    const answer = await postForm<SupplementaryCheck>(base, body, (sent) => setBusy({ what: `Sending ${file.name}`, sent }));
    setBusy(null);
    if (answer.status === 200) {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: trpc.supplementary.get.queryKey({ engagementId }) }),
        queryClient.invalidateQueries({ queryKey: trpc.engagements.get.queryKey({ engagementId }) }),
        queryClient.invalidateQueries({ queryKey: trpc.engagements.timeline.queryKey({ engagementId }) }),
      ]);
      announce({ tone: "success", text: `Sent ${file.name}: fresh tokens for ${companies(answer.companies ?? 0)}. Ferry support will review them.` });
      setFile(null);
      setCheck(null);
      setFileKey((k) => k + 1);
      return;
    }
    if (answer.check) setCheck(answer.check);
    setFileError(answer.error?.fields?.file ?? answer.error?.message ?? "The file could not be sent.");
  }

  const blocked = check !== null && !check.ok;
  return (
    <form
      className="space-y-4 rounded-md bg-slate-50 p-3"
      aria-label="Send fresh tokens"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      {view.current?.status === "submitted" ? (
        <Notice tone="warning" title="A new file replaces the one under review">
          The tokens in {view.current.fileName} are then deleted; send every company that needs fresh tokens in the new file.
        </Notice>
      ) : null}
      <p className="text-sm text-slate-700">
        The same columns as your first token file ({view.platform.name}), CSV or XLSX, up to {megabytes(view.limits.maxFileBytes)}. Start from the template:{" "}
        <a className="font-medium text-indigo-700 underline" href={`/api/templates/${view.platform.key}?format=csv`} download>
          CSV template
        </a>{" "}
        ·{" "}
        <a className="font-medium text-indigo-700 underline" href={`/api/templates/${view.platform.key}?format=xlsx`} download>
          XLSX template
        </a>
      </p>
      <Field label="File of fresh tokens" required error={fileError ?? undefined} hint="Choosing a file checks it at once; nothing is stored until you send it.">
        {(p) => (
          <input
            {...p}
            key={fileKey}
            type="file"
            accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
            className="block w-full text-sm text-slate-700 file:mr-3 file:rounded-md file:border-0 file:bg-indigo-50 file:px-3 file:py-2 file:font-medium file:text-indigo-800"
            onChange={(e) => void checkFile(e.target.files?.[0] ?? null)}
          />
        )}
      </Field>
      {busy ? (
        <div className="space-y-1" aria-live="polite">
          <p className="text-sm text-slate-700">{busy.what}…</p>
          <ProgressBar label={busy.what} value={busy.sent < 1 ? Math.round(busy.sent * 100) : undefined} valueText={busy.sent < 1 ? `${Math.round(busy.sent * 100)}% sent` : "Checking"} />
        </div>
      ) : null}
      <div aria-live="polite" className="space-y-4">
        {check ? (
          <>
            <CheckResult check={check} />
            <MatchedCompanies check={check} />
          </>
        ) : null}
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit" pending={busy !== null && busy.what.startsWith("Sending")} disabled={busy !== null || blocked}>
          Send fresh tokens
        </Button>
        {blocked ? <p className="text-sm text-slate-600">Fix the problems above and choose the file again to send it.</p> : null}
      </div>
    </form>
  );
}
