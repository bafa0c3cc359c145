/**
 * The words of a full-text query, any of which may match (so a question finds its note):
 * function words are left out, since they match nearly every note and add nothing to the
 * ranking, unless the query has nothing else. Letters, digits and underscores only.
 */
export function searchTerms(query: string): string[] {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])];
  const content = words.filter((w) => !STOPWORDS.has(w));
  return content.length > 0 ? content : words;
}

const STOPWORDS = new Set(
  (
    "a an the is are was were be been being am to of in on at for and or but not no nor so if then than " +
    "what which who whom whose how when where why do does did done i you he she it we they me him her us " +
    "them my your his its our their mine yours this that these those with as by from about into over can " +
    "could would should will shall may might must have has had there here some any all just also too very"
  ).split(" "),
);
