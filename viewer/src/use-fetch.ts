import { useEffect, useState } from "preact/hooks";

/** The state of a request: loading, its value, or its error. */
export type Loaded<T> =
  | { state: "loading" }
  | { state: "ok"; value: T }
  | { state: "error"; message: string };

/** Runs `load` whenever `key` changes. */
export function useFetch<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [result, setResult] = useState<Loaded<T>>({ state: "loading" });
  useEffect(() => {
    let live = true;
    setResult({ state: "loading" });
    load().then(
      (value) => live && setResult({ state: "ok", value }),
      (error: unknown) =>
        live && setResult({ state: "error", message: String((error as Error).message ?? error) }),
    );
    return () => {
      live = false;
    };
  }, [key]);
  return result;
}
