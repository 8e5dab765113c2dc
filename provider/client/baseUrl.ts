/**
 * The service base address as users write it. Every path the client calls begins with `/v2`, so an address copied
 * from the docs often ends in `/v2` already: that suffix is accepted and removed, otherwise every call would go to
 * `/v2/v2/...` and each one would answer 404 (which a delete would take for "already gone").
 */
import { quote } from "./values";

/** The rule every base address must follow, as error texts state it. */
export const BASE_URL_RULE = "must be an absolute http(s) URL without query, fragment or user:password";

/** Trimmed, without trailing slashes and without one trailing `/v2` (the client appends `/v2/...` itself). */
export function normalizeBaseUrl(raw: string): string {
  return raw.trim().replace(/\/+$/, "").replace(/\/v2$/i, "").replace(/\/+$/, "");
}

/**
 * Why `raw` cannot be a base address, as `<field> <rule> (got "...": <what is wrong>)`, or undefined when it can.
 * `field` is how the user set it: `pims:baseUrl`, `PIMS_BASE_URL`, `--base-url`. The value is shown without its
 * user:password, query and fragment, which may carry secrets.
 */
export function baseUrlProblem(raw: unknown, field = "baseUrl"): string | undefined {
  const bad = (what: string, shown: unknown = raw): string =>
    `${field} ${BASE_URL_RULE} (got ${quote(shown, 100)}: ${what})`;
  if (typeof raw !== "string") return bad("not a string");
  const text = raw.trim();
  if (text === "") return bad("empty");
  const shown = safeForDisplay(text);
  if (/\s/.test(text)) return bad("it contains white space", shown);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return bad("not an absolute URL", shown);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return bad(`the scheme is ${url.protocol.replace(/:$/, "")}`, shown);
  if (!url.hostname) return bad("no host", shown);
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(text))
    return bad("it carries a user:password", shown);
  if (text.includes("?")) return bad("it has a query", shown);
  if (text.includes("#")) return bad("it has a fragment", shown);
  return undefined;
}

/** The address with any user:password, query and fragment masked, so an error text can quote it. */
function safeForDisplay(text: string): string {
  return text
    .replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, "$1***@")
    .replace(/\?[^#]*/, "?***")
    .replace(/#.*$/, "#***");
}
