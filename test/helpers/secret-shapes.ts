/** A secret as a model might write it (`secret`), and the part of it that must never be shown (`hidden`). */
export interface SecretCase {
  name: string;
  secret: string;
  hidden: string;
}

/** Secrets a redactor knows by their shape, not their value. */
const SHAPED: readonly SecretCase[] = [
  { name: "a provider key shape", secret: "sk-proj-A1b2C3d4E5f6G7h8", hidden: "sk-proj-A1b2C3d4E5f6G7h8" },
  { name: "a Bearer token", secret: "Bearer tok3n.Value-9abc", hidden: "tok3n.Value-9abc" },
  { name: "a URL's password", secret: "https://bob:pa55word-x@db.test/", hidden: "bob:pa55word-x" },
  {
    name: "a credential query parameter",
    secret: "https://api.test/v1?api-key=k3y-value-999",
    hidden: "k3y-value-999",
  },
];

/** The split-secret cases: `literal`, a secret the redactor was told (described by `name`), then the shaped ones. */
export function secretCases(literal: string, name: string): SecretCase[] {
  return [{ name, secret: literal, hidden: literal }, ...SHAPED];
}

/** Every 4-character piece of `hidden`: none may appear in anything written or shown. */
export function fragments(hidden: string): string[] {
  return Array.from({ length: Math.max(0, hidden.length - 3) }, (_, i) => hidden.slice(i, i + 4));
}
