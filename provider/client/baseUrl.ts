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

/** This machine: `localhost`, 127.0.0.0/8, `[::1]`. Plain http to it never leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === "localhost" || h === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * Why a valid base address must not be used as it is: plain `http://` to another machine would carry the bearer
 * token, and every new service-account token, across the network unencrypted. `field` names where it was set,
 * `wayOut` the setting that allows it. Undefined for https and for this machine.
 */
export function insecureHttpProblem(baseUrl: string, field: string, wayOut: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    return undefined; // baseUrlProblem reports it
  }
  if (url.protocol !== "http:" || isLoopbackHost(url.hostname)) return undefined;
  return (
    `${field} uses plain http to ${url.host}, another machine (got ${quote(baseUrl, 100)}): the token and every new ` +
    "service-account token would cross the network unencrypted. Use an https:// address; or, on a private network " +
    `or behind a proxy that terminates TLS, allow plain http with ${wayOut}`
  );
}
