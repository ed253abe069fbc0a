"use client";
/**
 * Posting a token file to its route (not tRPC: files go up to 20 MB) with upload progress, which
 * fetch cannot report; hand-written on XMLHttpRequest for that reason. Answers the parsed JSON
 * body with its status; a refusal carries `error: { message, fields }`.
 */
import type { TokenFileCheck } from "@/app/_lib/types";

export type UploadAnswer<C = TokenFileCheck> = {
  status: number;
  error?: { code: string; message: string; fields: Record<string, string> | null };
  check?: C;
  submissionId?: string;
  /** A supplementary file's id once stored. */
  fileId?: string;
  companies?: number;
};

/** Posts `form` to `url`; `onProgress` gets the share of the body sent (0–1). `C`: the shape of the route's check. */
export function postForm<C = TokenFileCheck>(url: string, form: FormData, onProgress: (sent: number) => void): Promise<UploadAnswer<C>> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.responseType = "text";
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: Omit<UploadAnswer<C>, "status"> = {};
      try {
        body = JSON.parse(xhr.responseText) as Omit<UploadAnswer<C>, "status">;
      } catch {
        body = { error: { code: "INTERNAL_SERVER_ERROR", message: `The upload failed (HTTP ${xhr.status}). Please try again.`, fields: null } };
      }
      resolve({ status: xhr.status, ...body });
    };
    xhr.onerror = () => resolve({ status: 0, error: { code: "NETWORK", message: "The upload did not reach Ferry. Check your connection and try again.", fields: null } });
    xhr.send(form);
  });
}
