"use client";
import { Button } from "@/app/_components/ui";

/** Opens the browser's print dialog (the page's print styles leave only the report). */
export function PrintButton() {
  return (
    <Button variant="secondary" size="sm" onClick={() => window.print()}>
      Print
    </Button>
  );
}
