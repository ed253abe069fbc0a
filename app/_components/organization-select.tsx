"use client";
import { useQuery } from "@tanstack/react-query";
import type { SelectHTMLAttributes } from "react";
import { useTRPC } from "@/app/_trpc/react";
import type { ControlProps } from "./ui/field";
import { Select } from "./ui/input";

/**
 * The customer organisations as a select (inside a Field), with an empty "choose" option first.
 * Takes a form library's registration (name, ref, onChange, onBlur) or a plain value and onChange.
 */
export function OrganizationSelect({
  control,
  emptyLabel = "Choose an organisation…",
  ...select
}: { control: ControlProps; /** The first, empty option's words. */ emptyLabel?: string } & SelectHTMLAttributes<HTMLSelectElement> & { ref?: React.Ref<HTMLSelectElement> }) {
  const trpc = useTRPC();
  const organizations = useQuery(trpc.organizations.list.queryOptions());
  return (
    <Select {...control} name="organizationId" {...select}>
      <option value="">{emptyLabel}</option>
      {organizations.data?.map((o) => (
        <option key={o.id} value={o.id}>
          {o.name}
        </option>
      ))}
    </Select>
  );
}
