"use client";
import { useMutation } from "@tanstack/react-query";
import { signOut } from "next-auth/react";
import { useState } from "react";
import { useTRPC } from "@/app/_trpc/react";
import { Button } from "./ui/button";

/** Clears this browser's session cookie and starts afresh at sign-in. */
async function leave() {
  await signOut({ redirect: false });
  // A full page load drops every cached query of the previous user.
  // eslint-disable-next-line @next/next/no-location-assign-relative-destination -- deliberate full load, see above
  window.location.assign("/login");
}

/** Signing out ends every session of the person (server/accounts/sessions.ts), not only this one. */
export function SignOutButton() {
  const [pending, setPending] = useState(false);
  return (
    <Button
      variant="secondary"
      size="sm"
      pending={pending}
      onClick={async () => {
        setPending(true);
        await leave();
      }}
    >
      Sign out
    </Button>
  );
}

/** Ends every session of the signed-in person, on every device, then signs this browser out. */
export function SignOutEverywhereButton() {
  const trpc = useTRPC();
  const end = useMutation(trpc.me.signOutEverywhere.mutationOptions({ onSuccess: leave }));
  return (
    <Button variant="ghost" size="sm" pending={end.isPending || end.isSuccess} onClick={() => end.mutate()}>
      Sign out everywhere
    </Button>
  );
}
