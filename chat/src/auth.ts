import { ApiError, call, paths } from "./api.js";

/** Who the page is signed in as, or that it needs the token `glassloop serve` printed. */
export type SignIn = { state: "in"; id: string } | { state: "needs-token"; message?: string };

/** The page's own state in the URL fragment (`#chat=<id>`); the fragment never reaches a server or a log. */
export function readHash(): URLSearchParams {
  return new URLSearchParams(location.hash.replace(/^#/, ""));
}

/** Writes the fragment without a new history entry. */
export function writeHash(params: URLSearchParams): void {
  const text = params.toString();
  history.replaceState(null, "", text ? `#${text}` : location.pathname + location.search);
}

/** Trades a bearer token for the HttpOnly login cookie, so no script of the page keeps the token. */
export async function logIn(token: string): Promise<SignIn> {
  try {
    await call<void>(paths.login, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: "{}",
    });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401)
      return { state: "needs-token", message: "That token was refused." };
    throw error;
  }
  return whoAmI();
}

/** Signs in from `#token=…` (the link `glassloop serve` prints) and drops it from the address bar, else checks the cookie. */
export async function signIn(): Promise<SignIn> {
  const hash = readHash();
  const token = hash.get("token");
  if (token) {
    hash.delete("token");
    writeHash(hash);
    return logIn(token);
  }
  return whoAmI();
}

async function whoAmI(): Promise<SignIn> {
  try {
    const me = await call<{ id: string }>(paths.me);
    return { state: "in", id: me.id };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return { state: "needs-token" };
    throw error;
  }
}
