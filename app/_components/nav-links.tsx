"use client";
import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { Suspense, type ReactNode } from "react";
import { activeHref } from "@/app/_lib/nav";
import { cn } from "./ui/cn";
import { LinkPending } from "./ui/link-pending";

/** A section of the navigation; `after` is shown after its label, inside the link (a count). */
export type NavItem = { href: string; label: string; after?: ReactNode };

/** The main navigation; the current section is marked with aria-current. */
export function NavLinks({ items, label }: { items: readonly NavItem[]; label: string }) {
  // The search parameters are known only in the browser when a page is rendered ahead of time:
  // until then the links are shown with none marked current.
  return (
    <Suspense fallback={<NavList items={items} label={label} active={null} />}>
      <CurrentNavList items={items} label={label} />
    </Suspense>
  );
}

function CurrentNavList({ items, label }: { items: readonly NavItem[]; label: string }) {
  const pathname = usePathname();
  const search = useSearchParams();
  const active = activeHref(
    items.map((i) => i.href),
    pathname,
    new URLSearchParams(search.toString()),
  );
  return <NavList items={items} label={label} active={active} />;
}

function NavList({ items, label, active }: { items: readonly NavItem[]; label: string; active: string | null }) {
  return (
    <nav aria-label={label}>
      <ul className="flex flex-wrap items-center gap-1">
        {items.map((item) => {
          const current = item.href === active;
          return (
            <li key={item.href}>
              <Link
                href={item.href}
                aria-current={current ? "page" : undefined}
                className={cn(
                  "block rounded-md px-2.5 py-1.5 text-sm font-medium",
                  current ? "bg-indigo-50 text-indigo-800" : "text-slate-700 hover:bg-slate-100 hover:text-slate-900",
                )}
              >
                {item.label}
                {item.after}
                <LinkPending />
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
