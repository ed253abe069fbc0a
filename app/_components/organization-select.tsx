"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/app/_trpc/react";
import type { ControlProps } from "./ui/field";
import { Select } from "./ui/input";

/** The customer organisations as a select (inside a Field), with an empty "choose" option first. */
export function OrganizationSelect({
  control,
  value,
  onChange,
}: {
  control: ControlProps;
  value: string;
  onChange: (organizationId: string) => void;
}) {
  const trpc = useTRPC();
  const organizations = useQuery(trpc.organizations.list.queryOptions());
  return (
    <Select {...control} name="organizationId" value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">Choose an organisation…</option>
      {organizations.data?.map((o) => (
        <option key={o.id} value={o.id}>
          {o.name}
        </option>
      ))}
    </Select>
  );
}
