"use client";
import { useQueryClient } from "@tanstack/react-query";
import { CheckResult } from "@/app/_components/intake/check-result";
import { TemplateLinks, TokenFileInput, UploadProgress, useTokenFileUpload } from "@/app/_components/intake/token-file-upload";
import { FileFacts, FileRows, FreshTokensSection, MatchedCompanies, WaitingCompanies } from "@/app/_components/supplementary/supplementary-parts";
import { Button, Notice } from "@/app/_components/ui";
import type { Announce } from "@/app/_components/use-announcement";
import type { SupplementaryCheck, SupplementaryFileView, SupplementaryView } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { companiesText as companies, plural } from "@/core/words";

const megabytes = (bytes: number) => `${Math.round(bytes / 1048576)} MB`;


/**
 * Step 6 in the portal, after the bulk run: the companies that failed on their tokens, and a file
 * of fresh tokens for them — checked when chosen (nothing stored), sent for support's review, then
 * retried in the bulk migration once accepted. Nothing shows while no company needs fresh tokens
 * and no file was sent.
 */
export function FreshTokensPanel({ engagementId, announce }: { engagementId: string; announce: Announce }) {
  return (
    <FreshTokensSection engagementId={engagementId}>
      {(v) => (
        <>
          {v.current ? <FileStatus file={v.current} /> : null}
          {v.waiting.total ? (
            <>
              <p className="text-sm text-slate-700">
                {companies(v.waiting.total)} failed on {plural(v.waiting.total, { one: "its", other: "their" })} tokens: the platform refused the tokens in your file (your old app may have
                refreshed them after the export). Export fresh tokens for {plural(v.waiting.total, { one: "it", other: "them" })} from your app and send them here, one row per company with
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
        </>
      )}
    </FreshTokensSection>
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
    case "expired":
      return (
        <Notice tone="info" title="Deleted unreviewed: the hypercare watch ended first">
          {what} The watch ended before support reviewed the file, so its fresh tokens were deleted unused.
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
  const upload = useTokenFileUpload<SupplementaryCheck>(`/api/engagements/${engagementId}/supplementary-file`);

  async function send() {
    if (!upload.file) {
      upload.setFileError("Choose the file of fresh tokens to send.");
      return;
    }
    const name = upload.file.name;
    const answer = await upload.send("Sending");
    if (!answer) return;
    if (answer.status !== 200) {
      if (!answer.error?.fields?.file) upload.setFileError(answer.error?.message ?? "The file could not be sent.");
      return;
    }
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.supplementary.get.queryKey({ engagementId }) }),
      queryClient.invalidateQueries({ queryKey: trpc.engagements.get.queryKey({ engagementId }) }),
      queryClient.invalidateQueries({ queryKey: trpc.engagements.timeline.queryKey({ engagementId }) }),
    ]);
    announce({ tone: "success", text: `Sent ${name}: fresh tokens for ${companies(answer.companies ?? 0)}. Ferry support will review them.` });
    upload.reset();
  }

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
        The same columns as your first token file ({view.platform.name}), CSV or XLSX, up to {megabytes(view.limits.maxFileBytes)}. Start from the template: <TemplateLinks platformKey={view.platform.key} />
      </p>
      <TokenFileInput upload={upload} label="File of fresh tokens" hint="Choosing a file checks it at once; nothing is stored until you send it." />
      <UploadProgress busy={upload.busy} />
      <div aria-live="polite" className="space-y-4">
        {upload.check ? (
          <>
            <CheckResult check={upload.check} />
            <MatchedCompanies check={upload.check} />
          </>
        ) : null}
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit" pending={upload.busy?.what.startsWith("Sending") ?? false} disabled={upload.busy !== null || upload.blocked}>
          Send fresh tokens
        </Button>
        {upload.blocked ? <p className="text-sm text-slate-600">Fix the problems above and choose the file again to send it.</p> : null}
      </div>
    </form>
  );
}
