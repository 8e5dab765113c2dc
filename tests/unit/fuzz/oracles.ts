/**
 * The oracles of the fuzz suite (tests/unit/fuzz/check.test.ts), written from the documented rules of each resource's
 * inputs: per field, whether a value is valid and, if not, the patterns a reason stating the broken rule matches.
 */
import { UNKNOWN } from "../../../provider/checks";
import { isPlainObject } from "../../../provider/client/values";
import type { Props } from "./inputs";

/** What the oracle says about one field: undefined = valid, else the patterns an acceptable reason matches. */
export type Verdict = RegExp[] | undefined;

// ---- oracle helpers ------------------------------------------------------------------------------------

const chars = (s: string): number => Array.from(s).length;
const absent = (v: unknown): boolean => v === undefined || v === null;
const validInt = (v: unknown, min: number, max = Infinity): v is number =>
  typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;

/** A required non-empty id string (the wording every provider shares). */
function requiredIdVerdict(name: string, v: unknown): Verdict {
  if (absent(v)) return [new RegExp(`^${name} is required$`)];
  if (v === UNKNOWN) return undefined;
  if (typeof v !== "string") return [new RegExp(`^${name} must be a string \\(got \\w+\\)$`)];
  if (v.trim() === "") return [new RegExp(`^${name} must not be empty$`)];
  return undefined;
}

// ---- the oracles, one per resource ---------------------------------------------------------------------

export function projectOracle(news: Props): Record<string, Verdict> {
  const name = news.name;
  let v: Verdict;
  if (absent(name)) v = [/^name is required$/];
  else if (name === UNKNOWN) v = undefined;
  else if (typeof name !== "string") v = [/^name must be a string \(got \w+\)$/];
  else if (chars(name) < 2 || chars(name) > 50)
    v = [new RegExp(`^name must be 2 to 50 characters \\(got ${chars(name)}: `)];
  return { name: v };
}

export function serviceAccountOracle(news: Props): Record<string, Verdict> {
  const out: Record<string, Verdict> = {};
  const { projectId, name, description, grants, expiresIn, rotationTrigger, rotateBeforeExpiry } = news;

  // the shared required-id rule (the same wording as VolumeSize and AppSecrets)
  const projectIdVerdict = requiredIdVerdict("projectId", projectId);
  if (projectIdVerdict) out.projectId = projectIdVerdict;

  if (absent(name)) out.name = [/^name is required: 1 to 100 characters$/];
  else if (name !== UNKNOWN) {
    if (typeof name !== "string") out.name = [/^name must be a string of 1 to 100 characters \(got .*\)$/s];
    else if (chars(name) < 1 || chars(name) > 100)
      out.name = [new RegExp(`^name must be 1 to 100 characters \\(got ${chars(name)}\\)$`)];
  }

  if (!absent(description) && description !== UNKNOWN) {
    if (typeof description !== "string")
      out.description = [/^description must be a string of at most 500 characters \(got .*\)$/s];
    else if (chars(description) > 500)
      out.description = [new RegExp(`^description must be at most 500 characters \\(got ${chars(description)}\\)$`)];
  }

  if (absent(grants)) out.grants = [/^grants is required: 1 to 50 project ids the account may access$/];
  else if (grants !== UNKNOWN) {
    if (!Array.isArray(grants)) out.grants = [/^grants must be an array of 1 to 50 project ids \(got .*\)$/s];
    else {
      const bad = grants.length < 1 || grants.length > 50;
      const known = grants.filter((g) => g !== UNKNOWN);
      const badEntry = known.some((g) => typeof g !== "string" || g.trim() === "");
      const strings = known.filter((g): g is string => typeof g === "string" && g.trim() !== "");
      const duplicate = new Set(strings).size !== strings.length;
      if (bad || badEntry || duplicate) {
        out.grants = [
          /^grants must have 1 to 50 entries \(got \d+\)$/,
          /^grants\[\d+\] must be a non-empty project id string \(got .*\)$/s,
          /^grants must not contain duplicates \(.* appears more than once\)$/s,
        ];
      }
    }
  }

  const expiresInOk = validInt(expiresIn, 0, 31_536_000);
  if (absent(expiresIn))
    out.expiresIn = [/^expiresIn is required: the token lifetime in seconds, 0 to 31536000 \(0 = never expires\)$/];
  else if (expiresIn !== UNKNOWN && !expiresInOk)
    out.expiresIn = [
      /^expiresIn must be an integer number of seconds from 0 to 31536000 \(0 = never expires\) \(got .*\)$/s,
    ];

  if (!absent(rotationTrigger) && rotationTrigger !== UNKNOWN && typeof rotationTrigger !== "string")
    out.rotationTrigger = [/^rotationTrigger must be a string \(got .*\); convert it, e.g\. String\(value\)$/s];

  if (!absent(rotateBeforeExpiry) && rotateBeforeExpiry !== UNKNOWN) {
    if (!validInt(rotateBeforeExpiry, 0))
      out.rotateBeforeExpiry = [/^rotateBeforeExpiry must be a non-negative integer number of seconds \(got .*\)$/s];
    else if (expiresInOk && expiresIn > 0 && rotateBeforeExpiry >= expiresIn)
      out.rotateBeforeExpiry = [/^rotateBeforeExpiry must be less than expiresIn \(got \S+ >= \d+\): /];
  }
  return out;
}

export function volumeSizeOracle(olds: Props, news: Props): Record<string, Verdict> {
  const out: Record<string, Verdict> = {
    projectId: requiredIdVerdict("projectId", news.projectId),
    volumeId: requiredIdVerdict("volumeId", news.volumeId),
  };
  const size = news.sizeGb;
  if (absent(size)) out.sizeGb = [/^sizeGb is required$/];
  else if (size !== UNKNOWN) {
    if (typeof size !== "number" || !Number.isInteger(size)) out.sizeGb = [/^sizeGb must be an integer \(got .*\)$/s];
    else if (size < 50)
      out.sizeGb = [new RegExp(`^sizeGb must be at least 50 \\(got ${String(size).replace(/[+.]/g, "\\$&")}\\)$`)];
    else {
      // Volumes only grow: compared with the previous inputs when they describe the same volume.
      const sameVolume =
        typeof olds.projectId === "string" &&
        typeof olds.volumeId === "string" &&
        olds.projectId === news.projectId &&
        olds.volumeId === news.volumeId;
      if (sameVolume && typeof olds.sizeGb === "number" && size < olds.sizeGb)
        out.sizeGb = [/^sizeGb cannot shrink from .+ to .+: volumes only grow$/];
    }
  }
  return out;
}

export function appSecretsOracle(news: Props): Record<string, Verdict> {
  const out: Record<string, Verdict> = {
    projectId: requiredIdVerdict("projectId", news.projectId),
    appId: requiredIdVerdict("appId", news.appId),
  };
  const secrets = news.secrets;
  if (absent(secrets)) out.secrets = [/^secrets is required$/];
  else if (secrets === UNKNOWN) out.secrets = undefined;
  else if (!isPlainObject(secrets))
    out.secrets = [/^secrets must be a map of secret names to string values \(got [\w ]+\)$/];
  else if (Object.keys(secrets).length === 0) out.secrets = [/^secrets must contain at least one secret: /];
  else {
    const bad = Object.entries(secrets).some(
      ([k, v]) =>
        k.length > 256 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) || absent(v) || (v !== UNKNOWN && typeof v !== "string"),
    );
    if (bad) {
      out.secrets = [
        /^secret name ".*" must be at most 256 characters \(got \d+\)$/s,
        /^secret name ".*" must match \^\[A-Za-z_\]\[A-Za-z0-9_\]\*\$ \(a letter or underscore, then letters, digits or underscores\)$/s,
        /^secret ".*" has no value: values must be strings$/s,
        /^secret ".*" must have a string value \(got [\w ]+\)$/s,
      ];
    }
  }
  return out;
}
