/** Pretty JSON as text: exactly `JSON.stringify(value, null, 2)`, so what you copy is what was sent. */
export function JsonBlock({ value, testid }: { value: unknown; testid?: string }) {
  return (
    <pre class="json" data-testid={testid}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

/** A tool's argument or result text: pretty when it is JSON, verbatim otherwise. */
export function TextOrJson({ text }: { text: string }) {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === "object") return <JsonBlock value={parsed} />;
  } catch {
    // Not JSON: shown as the model or the tool wrote it.
  }
  return <pre class="text">{text}</pre>;
}
