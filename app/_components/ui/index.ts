/** Ferry's small component library. */
export { Badge, type BadgeTone } from "./badge";
export { Button, type ButtonProps } from "./button";
export { buttonClasses, type ButtonSize, type ButtonVariant } from "./button-classes";
export { useHydrated } from "./use-hydrated";
export { Card } from "./card";
export { cn } from "./cn";
export { CopyButton } from "./copy-button";
export { Dialog, DialogActions } from "./dialog";
export { EmptyState } from "./empty-state";
export { Field, type ControlProps } from "./field";
export { Form, type FormProps } from "./form";
export { Input, Select, Textarea } from "./input";
export { Notice, type NoticeTone } from "./notice";
export { PageHeader } from "./page-header";
export { Pagination } from "./pagination";
export { ProgressBar } from "./progress-bar";
export { Spinner } from "./spinner";
export { Table, TBody, Td, Th, THead, Tr } from "./table";
