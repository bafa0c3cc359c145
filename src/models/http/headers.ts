/**
 * Request headers from several sources, merged by name ignoring letter case. Later layers win,
 * and each name is sent once, lower-cased: `Authorization` from the user and `authorization` from
 * the environment's key must not both go out, joined with a comma (gateways reject that).
 */
export function mergeHeaders(
  ...layers: readonly (Readonly<Record<string, string | undefined>> | undefined | false)[]
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const [name, value] of Object.entries(layer)) {
      if (value !== undefined) merged[name.toLowerCase()] = value;
    }
  }
  return merged;
}
