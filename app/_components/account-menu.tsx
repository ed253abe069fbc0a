"use client";
import { useEffect, useId, useRef, useState } from "react";
import { roleLabel } from "@/app/_lib/labels";
import type { Role } from "@/app/_lib/types";
import { MailPreferenceChoice } from "./mail-preference";
import { SignOutButton, SignOutEverywhereButton } from "./sign-out-button";

/**
 * Who is signed in, as the header's last item, and their menu (sign out here, sign out
 * everywhere, which mail they want): two buttons fewer in the header, so the admin's seven sections fit on one line at a
 * laptop's width. The menu closes on Escape (focus back on its button) and on a click elsewhere.
 */
export function AccountMenu({ user }: { user: { name: string; email: string; role: Role; organizationName?: string | null } }) {
  const [open, setOpen] = useState(false);
  // The mail preference is asked for once the menu has been opened, not with every page.
  const [everOpened, setEverOpened] = useState(false);
  if (open && !everOpened) setEverOpened(true);
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menuId = useId();
  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (!box.current?.contains(event.target as Node)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener("pointerdown", onPointer);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("pointerdown", onPointer);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);
  return (
    <div ref={box} className="relative ml-auto text-sm sm:order-last">
      <button
        ref={button}
        type="button"
        aria-expanded={open}
        aria-controls={menuId}
        onClick={() => setOpen((o) => !o)}
        className="flex items-center gap-2 rounded-md px-2 py-1 text-right hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-indigo-600"
      >
        <span className="sr-only">Account: </span>
        <span className="leading-tight">
          <span className="block font-medium text-slate-900">{user.name}</span>
          <span className="block text-xs text-slate-600">
            {roleLabel(user.role)}
            {user.organizationName ? ` · ${user.organizationName}` : ""}
          </span>
        </span>
        <svg viewBox="0 0 20 20" fill="currentColor" aria-hidden="true" className={open ? "size-4 rotate-180 text-slate-500" : "size-4 text-slate-500"}>
          <path d="M5.22 8.22a.75.75 0 0 1 1.06 0L10 11.94l3.72-3.72a.75.75 0 1 1 1.06 1.06l-4.25 4.25a.75.75 0 0 1-1.06 0L5.22 9.28a.75.75 0 0 1 0-1.06Z" />
        </svg>
      </button>
      <div id={menuId} hidden={!open} className="absolute right-0 z-40 mt-2 w-64 space-y-2 rounded-md border border-slate-200 bg-white p-3 text-left shadow-lg">
        <p className="truncate text-xs text-slate-600" title={user.email}>
          Signed in as {user.email}
        </p>
        <div className="flex flex-wrap gap-2">
          <SignOutButton />
          <SignOutEverywhereButton />
        </div>
        <MailPreferenceChoice enabled={everOpened} digest={user.role === "customer" ? "weekly" : "daily"} />
      </div>
    </div>
  );
}
