import Link from "next/link";
import type { ReactNode } from "react";
import type { Role } from "@/app/_lib/types";
import { AccountMenu } from "./account-menu";
import { NavLinks, type NavItem } from "./nav-links";

export type ShellUser = { name: string; email: string; role: Role; organizationName?: string | null };

/** Page chrome: skip link, brand, navigation, who is signed in and their menu (sign out). */
export function AppShell({ user, nav, area, children }: { user: ShellUser | null; nav: readonly NavItem[]; area: string; children: ReactNode }) {
  return (
    <>
      <a
        href="#main"
        className="sr-only z-50 rounded-md bg-white px-4 py-2 text-sm font-medium text-indigo-800 shadow focus:not-sr-only focus:fixed focus:top-2 focus:left-2"
      >
        Skip to main content
      </a>
      <header className="border-b border-slate-200 bg-white print:hidden">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3 sm:px-6">
          <Link href="/" className="flex items-center gap-2 text-base font-semibold text-slate-900">
            <span aria-hidden="true" className="inline-flex size-7 items-center justify-center rounded-md bg-indigo-600 text-sm text-white">
              F
            </span>
            Ferry <span className="font-normal text-slate-500">{area}</span>
          </Link>
          {user ? <AccountMenu user={user} /> : null}
          {/* On a phone the sections take a line of their own under the brand and the account; from sm up they sit between them. */}
          {nav.length ? (
            <div className="order-last w-full sm:order-none sm:w-auto">
              <NavLinks items={nav} label="Main" />
            </div>
          ) : null}
        </div>
      </header>
      <main id="main" tabIndex={-1} className="mx-auto max-w-7xl px-4 py-8 outline-none sm:px-6 print:max-w-none print:p-0">
        {children}
      </main>
    </>
  );
}
