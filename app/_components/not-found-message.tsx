import Link from "next/link";
import { buttonClasses } from "./ui/button-classes";

/** "404 · Not found" in words, with a way back. */
export function NotFoundMessage({ title = "We couldn't find that page", message, backHref = "/", backLabel = "Go to your home page" }: { title?: string; message?: string; backHref?: string; backLabel?: string }) {
  return (
    <section aria-labelledby="not-found-title" className="mx-auto max-w-lg py-16 text-center">
      <p className="text-sm font-semibold text-indigo-700">404 · Not found</p>
      <h1 id="not-found-title" className="mt-2 text-2xl font-semibold text-slate-900">
        {title}
      </h1>
      <p className="mt-3 text-slate-600">{message ?? "The link may be mistyped, or what it pointed to no longer exists."}</p>
      <Link href={backHref} className={buttonClasses({ className: "mt-6" })}>
        {backLabel}
      </Link>
    </section>
  );
}
