import { useEffect, useRef, useState } from "preact/hooks";

/** The state of a request: loading, its value, or its error. */
export type Loaded<T> =
  | { state: "loading" }
  | { state: "ok"; value: T }
  | { state: "error"; message: string };

/** Keys `a#n` and `a#m` name the same thing fetched again (a poll): keep showing the old value meanwhile. */
function sameBase(a: string, b: string): boolean {
  return a.split("#")[0] === b.split("#")[0];
}

/** Runs `load` whenever `key` changes. */
export function useFetch<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [result, setResult] = useState<Loaded<T>>({ state: "loading" });
  const lastKey = useRef("");
  useEffect(() => {
    let live = true;
    setResult((previous) =>
      previous.state === "ok" && sameBase(key, lastKey.current) ? previous : { state: "loading" },
    );
    lastKey.current = key;
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
