/**
 * The `tokenDelivery` input (./delivery does the delivering): its type, the rules `check` runs (and a create again,
 * before it spends a request), and the form the state compares. Its own file so that ./inputs, which declares the
 * input, and ./delivery, which reads the inputs and outputs, do not import each other. No call to the service.
 */
import * as path from "node:path";
import { isUnknown, type Failures } from "../checks";
import { quote } from "../client/values";
import { recipientProblem } from "./seal";

/** Where a new token goes instead of the state: exactly one of `ageRecipients`, `command`, `file`. */
export interface TokenDelivery {
  /**
   * Sealed: age X25519 recipients (`age1…`, 1 to 20, as `age-keygen` prints them). The token is encrypted to them and
   * the state keeps only the ASCII-armored ciphertext (`sealedToken`); `age -d -i <identity>` opens it.
   */
  ageRecipients?: string[];
  /**
   * Command: an argv (no shell) run on the machine running `pulumi up`, with the token on its standard input (no
   * trailing newline) and PIMS_SERVICE_ACCOUNT_ID, PIMS_SERVICE_ACCOUNT_NAME, PIMS_PROJECT_ID, PIMS_TOKEN_ID and
   * PIMS_TOKEN_EXPIRES_AT in its environment (plus the provider's, without PIMS_TOKEN). It must exit 0 for the delivery
   * to count; its output is shown with the token's bytes redacted. E.g. `["gh", "secret", "set", "PIMS_TOKEN"]`.
   */
  command?: string[];
  /** The command's time limit in seconds: 1 to 3600. Default 60. */
  commandTimeoutSeconds?: number;
  /**
   * File: an absolute path, written atomically (a temporary file in the same directory, then a rename) with mode 0600.
   * For local development.
   */
  file?: string;
}

export type DeliveryMode = "sealed" | "command" | "file";

/** At most this many age recipients; the command's time limit bounds and default, in seconds. */
export const [MAX_RECIPIENTS, MAX_TIMEOUT_S, DEFAULT_TIMEOUT_S] = [20, 3600, 60] as const;

const MEMBERS = ["ageRecipients", "command", "file"] as const;
const isSet = (v: unknown): boolean => v !== undefined && v !== null;

/** The mode a (checked) delivery input names, or undefined for the default (the token held as a secret output). */
export function deliveryMode(d: unknown): DeliveryMode | undefined {
  if (typeof d !== "object" || d === null || Array.isArray(d)) return undefined;
  const v = d as TokenDelivery;
  if (isSet(v.ageRecipients)) return "sealed";
  if (isSet(v.command)) return "command";
  if (isSet(v.file)) return "file";
  return undefined;
}

/** The rules of `tokenDelivery` (check, and again before a create): no call; values unknown at preview skipped. */
export function checkDelivery(f: Failures, d: unknown): void {
  const add = (reason: string): void => f.add("tokenDelivery", reason);
  if (d === undefined || d === null || (isUnknown(d) && typeof d === "string")) return;
  if (typeof d !== "object" || Array.isArray(d)) {
    add(`tokenDelivery must be an object with one of ${MEMBERS.join(", ")} (got ${quote(d)})`);
    return;
  }
  const v = d as Record<string, unknown>;
  const set = MEMBERS.filter((k) => isSet(v[k]));
  if (set.length !== 1) {
    const got = set.length === 0 ? "none" : set.join(" and ");
    add(`tokenDelivery must set exactly one of ageRecipients, command or file (got ${got})`);
  }
  if (isSet(v.ageRecipients)) checkRecipients(add, v.ageRecipients);
  if (isSet(v.command)) checkCommand(add, v.command);
  if (isSet(v.commandTimeoutSeconds) && !isUnknown(v.commandTimeoutSeconds)) {
    const t = v.commandTimeoutSeconds;
    if (typeof t !== "number" || !Number.isInteger(t) || t < 1 || t > MAX_TIMEOUT_S)
      add(`tokenDelivery.commandTimeoutSeconds must be an integer from 1 to ${MAX_TIMEOUT_S} (got ${quote(t)})`);
    else if (!isSet(v.command)) add("tokenDelivery.commandTimeoutSeconds applies only with tokenDelivery.command");
  }
  if (isSet(v.file) && !isUnknown(v.file)) {
    const p = v.file;
    if (typeof p !== "string" || p.trim() === "" || !path.isAbsolute(p))
      add(`tokenDelivery.file must be an absolute path (got ${quote(p)})`);
  }
}

function checkRecipients(add: (reason: string) => void, r: unknown): void {
  if (isUnknown(r) && !Array.isArray(r)) return;
  if (!Array.isArray(r) || r.length < 1 || r.length > MAX_RECIPIENTS) {
    const got = Array.isArray(r) ? `${r.length} entries` : quote(r);
    add(`tokenDelivery.ageRecipients must be a list of 1 to ${MAX_RECIPIENTS} age recipients (got ${got})`);
    return;
  }
  r.forEach((x: unknown, i) => {
    if (isUnknown(x)) return;
    const problem = recipientProblem(x);
    if (problem) add(`tokenDelivery.ageRecipients[${i}] ${problem}`);
  });
}

function checkCommand(add: (reason: string) => void, c: unknown): void {
  if (isUnknown(c) && !Array.isArray(c)) return;
  if (!Array.isArray(c) || c.length === 0) {
    const example = '["gh", "secret", "set", "PIMS_TOKEN"]';
    add(`tokenDelivery.command must be a non-empty argv list, e.g. ${example} (got ${quote(c)})`);
    return;
  }
  c.forEach((x: unknown, i) => {
    if (isUnknown(x)) return;
    if (typeof x !== "string" || (i === 0 && x.trim() === ""))
      add(`tokenDelivery.command[${i}] must be a ${i === 0 ? "non-empty " : ""}string (got ${quote(x)})`);
  });
}

/** The delivery as the state compares it: only the member of its mode (and the time limit with a command). */
export function normalizedDelivery(d: TokenDelivery | undefined): TokenDelivery | undefined {
  if (d === undefined || d === null || isUnknown(d) || typeof d !== "object") return d ?? undefined;
  const out: TokenDelivery = {};
  for (const k of [...MEMBERS, "commandTimeoutSeconds"] as const) if (isSet(d[k])) Object.assign(out, { [k]: d[k] });
  return out;
}

/** Same delivery (the stored one and the program's): compared as JSON of the normalized members. */
export function sameDelivery(a: unknown, b: unknown): boolean {
  if (isUnknown(b)) return false;
  const json = (x: unknown): string => JSON.stringify(normalizedDelivery(x as TokenDelivery) ?? null);
  return json(a) === json(b);
}
