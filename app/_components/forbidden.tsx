import Link from "next/link";
import { buttonClasses } from "./ui/button-classes";

/** What someone sees when they are signed in but may not see this page (HTTP 403 in words). */
export function Forbidden({ message, homeHref = "/" }: { message?: string; homeHref?: string }) {
  return (
    <section aria-labelledby="forbidden-title" className="mx-auto max-w-lg py-16 text-center">
      <p className="text-sm font-semibold text-indigo-700">403 · Forbidden</p>
      <h1 id="forbidden-title" className="mt-2 text-2xl font-semibold text-slate-900">
        You don&apos;t have access to this page
      </h1>
      <p className="mt-3 text-slate-600">{message ?? "Your account cannot open this page. If you think it should, ask a Ferry admin."}</p>
      <Link href={homeHref} className={buttonClasses({ className: "mt-6" })}>
        Go to your home page
      </Link>
    </section>
  );
}
