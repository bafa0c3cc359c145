/** A run's or a tool call's status, colored by outcome. */
export function StatusBadge({ status }: { status: string }) {
  const tone = status === "ok" ? "good" : status === "incomplete" || status === "repeated" ? "warn" : "bad";
  return <span class={`badge ${tone}`}>{status}</span>;
}
