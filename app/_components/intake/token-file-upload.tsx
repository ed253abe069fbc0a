"use client";
/**
 * Choosing and sending a file of tokens, as step 1's token file and step 6's fresh tokens both do:
 * the file is checked as soon as it is chosen (nothing stored), sent with upload progress, and the
 * input emptied once it is stored. The hook keeps the state; the parts show it.
 */
import { useState } from "react";
import { Field, ProgressBar } from "@/app/_components/ui";
import type { TokenFileCheck } from "@/app/_lib/types";
import { postForm, type UploadAnswer } from "./post-form";

type Busy = { what: string; sent: number };

/** The state of a token file being chosen, checked and sent to `base` (its check at `${base}/check`). */
export function useTokenFileUpload<C extends { ok: boolean } = TokenFileCheck>(base: string) {
  // Remounting the file input (a new key) is how it is emptied after a file was sent.
  const [fileKey, setFileKey] = useState(0);
  const [file, setFile] = useState<File | null>(null);
  const [check, setCheck] = useState<C | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [busy, setBusy] = useState<Busy | null>(null);

  async function post(url: string, body: FormData, what: string): Promise<UploadAnswer<C>> {
    setBusy({ what, sent: 0 });
    const answer = await postForm<C>(url, body, (sent) => setBusy({ what, sent }));
    setBusy(null);
    return answer;
  }

  return {
    fileKey,
    file,
    check,
    fileError,
    setFileError,
    busy,
    /** The check refused the chosen file: nothing can be sent until another is chosen. */
    blocked: check !== null && !check.ok,
    /** Checks the chosen file (nothing stored); its problems show by line. */
    async choose(chosen: File | null): Promise<void> {
      setFile(chosen);
      setCheck(null);
      setFileError(null);
      if (!chosen) return;
      const body = new FormData();
      body.set("file", chosen);
      const answer = await post(`${base}/check`, body, `Checking ${chosen.name}`);
      if (answer.check) setCheck(answer.check);
      else setFileError(answer.error?.fields?.file ?? answer.error?.message ?? "The file could not be checked.");
    },
    /** Sends the chosen file with `fields`; on a refusal shows the check and the file's own error, and answers the rest to the caller. */
    async send(verb: string, fields: Record<string, string> = {}): Promise<UploadAnswer<C> | null> {
      if (!file) return null;
      const body = new FormData();
      body.set("file", file);
      for (const [k, v] of Object.entries(fields)) body.set(k, v);
      const answer = await post(base, body, `${verb} ${file.name}`);
      if (answer.status === 200) return answer;
      if (answer.check) setCheck(answer.check);
      if (answer.error?.fields?.file) setFileError(answer.error.fields.file);
      return answer;
    },
    /** Empties the input after the file was stored. */
    reset(): void {
      setFile(null);
      setCheck(null);
      setFileKey((k) => k + 1);
    },
  };
}

/** The platform's CSV and XLSX templates. */
export function TemplateLinks({ platformKey }: { platformKey: string }) {
  return (
    <>
      <a className="font-medium text-indigo-700 underline" href={`/api/templates/${platformKey}?format=csv`} download>
        CSV template
      </a>{" "}
      ·{" "}
      <a className="font-medium text-indigo-700 underline" href={`/api/templates/${platformKey}?format=xlsx`} download>
        XLSX template
      </a>
    </>
  );
}

/** The file chooser: CSV or XLSX, checked as soon as a file is chosen. */
export function TokenFileInput({ upload, label, hint }: { upload: ReturnType<typeof useTokenFileUpload<{ ok: boolean }>>; label: string; hint: string }) {
  return (
    <Field label={label} required error={upload.fileError ?? undefined} hint={hint}>
      {(p) => (
        <input
          {...p}
          key={upload.fileKey}
          type="file"
          accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
          className="block w-full text-sm text-slate-700 file:mr-3 file:rounded-md file:border-0 file:bg-indigo-50 file:px-3 file:py-2 file:font-medium file:text-indigo-800"
          onChange={(e) => void upload.choose(e.target.files?.[0] ?? null)}
        />
      )}
    </Field>
  );
}

/** What is being sent or checked, with its progress. */
export function UploadProgress({ busy }: { busy: Busy | null }) {
  if (!busy) return null;
  return (
    <div className="space-y-1" aria-live="polite">
      <p className="text-sm text-slate-700">{busy.what}…</p>
      <ProgressBar label={busy.what} value={busy.sent < 1 ? Math.round(busy.sent * 100) : undefined} valueText={busy.sent < 1 ? `${Math.round(busy.sent * 100)}% sent` : "Checking"} />
    </div>
  );
}
