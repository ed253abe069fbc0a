"use client";
import { useRouter } from "next/navigation";
import { useCallback } from "react";

/**
 * Changes the page's URL in place (a section of the engagement page, the list's filters): through
 * the History API, which Next's router follows — useSearchParams changes, the server is not asked.
 * Next follows pushState and replaceState only once its own effect has patched them, just after
 * the page hydrates: a change in between (a quick reader, a loaded machine) would move the address
 * bar and nothing else. Until then the router is asked instead (the same URL, from the server).
 */
export function useUrlInPlace(): (url: string, mode?: "push" | "replace") => void {
  const router = useRouter();
  return useCallback(
    (url, mode = "push") => {
      const followed = Object.hasOwn(window.history, mode === "push" ? "pushState" : "replaceState");
      if (mode === "push") {
        if (followed) window.history.pushState(null, "", url);
        else router.push(url, { scroll: false });
      } else if (followed) window.history.replaceState(null, "", url);
      else router.replace(url, { scroll: false });
    },
    [router],
  );
}
