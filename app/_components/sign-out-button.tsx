"use client";
import { signOut } from "next-auth/react";
import { useState } from "react";
import { Button } from "./ui/button";

export function SignOutButton() {
  const [pending, setPending] = useState(false);
  return (
    <Button
      variant="secondary"
      size="sm"
      pending={pending}
      onClick={async () => {
        setPending(true);
        await signOut({ redirect: false });
        // A full page load drops every cached query of the previous user.
        // eslint-disable-next-line @next/next/no-location-assign-relative-destination -- deliberate full load, see above
        window.location.assign("/login");
      }}
    >
      Sign out
    </Button>
  );
}
