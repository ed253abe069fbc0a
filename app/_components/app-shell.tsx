import Link from "next/link";
import type { ReactNode } from "react";
import { roleLabel } from "@/app/_lib/labels";
import type { Role } from "@/app/_lib/types";
import { NavLinks, type NavItem } from "./nav-links";
import { SignOutButton, SignOutEverywhereButton } from "./sign-out-button";

export type ShellUser = { name: string; email: string; role: Role; organizationName?: string | null };

/** Page chrome: skip link, brand, navigation, who is signed in, sign out. */
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
          {nav.length ? <NavLinks items={nav} label="Main" /> : null}
          {user ? (
            <div className="ml-auto flex items-center gap-3 text-sm">
              <span className="text-right leading-tight">
                <span className="block font-medium text-slate-900">{user.name}</span>
                <span className="block text-xs text-slate-600">
                  {roleLabel(user.role)}
                  {user.organizationName ? ` · ${user.organizationName}` : ""}
                </span>
              </span>
              <SignOutEverywhereButton />
              <SignOutButton />
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
