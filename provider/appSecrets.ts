/**
 * AppSecrets: secrets of an app, set with PATCH /v2/projects/{project_id}/apps/{app_id}/secrets.
 *
 * Whether that PATCH merges into or replaces the app's secrets is not documented, and there is no operation to
 * read or delete secrets. So this resource works the same under both behaviours:
 * - create and update always send the full desired map (never a partial one),
 * - a key removed from the map disappears under a replacing service, but stays (with its last value) under a
 *   merging one: update warns, naming the keys (never the values), that they may remain in the app,
 * - `read` (refresh) returns the state unchanged; import is refused, naming what to declare instead,
 * - `delete` changes nothing in the service and warns that the secrets stay in the app (names only).
 * No secret value ever appears in a check failure, an error message or a warning.
 */
import type * as pulumi from "@pulumi/pulumi";
import { redact, errorText, progress, warning } from "./client";
import { isPlainObject, quote } from "./client/values";
import { Failures, isUnknown, UNKNOWN } from "./checks";
import { PimsProviderBase } from "./providerBase";
import { changedKeys, clean } from "./diff";
import { declareKind, STR, STR_LIST, STR_MAP } from "./kindDeclaration";

// ---- types ----------------------------------------------------------------------------------------------

/** What the program declares (the SDK's `AppSecretsArgs` are these, each a `pulumi.Input`). */
export interface AppSecretsInputs {
  /** Id of the project that owns the app, e.g. `p-1a2b3c4d`. Changing it replaces the resource. */
  projectId: string;
  /** Id of the app, e.g. `p-1a2b3c4d-web`. Changing it replaces the resource. */
  appId: string;
  /**
   * The app's secrets: name → value. At least one entry. Each name matches `^[A-Za-z_][A-Za-z0-9_]*$`
   * (a letter or underscore, then letters, digits or underscores) and has at most 256 characters; each value is
   * a string. The whole map is stored as a secret in the state, in inputs and outputs alike.
   */
  secrets: Record<string, string>;
}

/** What the state holds (and what `diff` receives as `olds`); the SDK class's output properties are these. */
export interface AppSecretsOutputs extends AppSecretsInputs {
  /** The names of `secrets`, sorted (not secret: for display). */
  secretNames: string[];
}

/** Every output key, once: the annotation makes the compiler reject a missing or unknown key. */
const OUTPUT_KEY_SET: Record<keyof AppSecretsOutputs, true> = {
  projectId: true,
  appId: true,
  secrets: true,
  secretNames: true,
};
/** The output keys, which the SDK class seeds on the resource. */
export const APP_SECRETS_OUTPUT_KEYS = Object.keys(OUTPUT_KEY_SET);
/** The outputs stored as secrets (`additionalSecretOutputs` of the SDK class; `secret` in the plugin's schema). */
export const APP_SECRETS_SECRET_OUTPUTS = ["secrets"] satisfies Array<keyof AppSecretsOutputs>;

/** Rules for secret names. */
export const SECRET_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const SECRET_NAME_MAX = 256;

/** Inputs whose change replaces the resource (it then manages another app's secrets). */
const REPLACE_ON = ["projectId", "appId"] as const;

export const appSecretsId = (projectId: string, appId: string): string => `${projectId}/${appId}`;

function outputs(i: AppSecretsInputs): AppSecretsOutputs {
  const secrets: Record<string, string> = { ...i.secrets };
  return clean({ projectId: i.projectId, appId: i.appId, secrets, secretNames: Object.keys(secrets).sort() });
}

/** Same names with the same values. */
export function sameSecrets(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const ka = Object.keys(a);
  return (
    ka.length === Object.keys(b).length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && a[k] === b[k])
  );
}

const nameList = (names: readonly string[]): string => names.map((n) => JSON.stringify(n)).join(", ");

/** Warning when keys were dropped from the map: whether they are gone depends on the service. Names only. */
export function removedKeysWarning(projectId: string, appId: string, removed: readonly string[]): string {
  return (
    `pulumi-pims: secret(s) ${nameList(removed)} were dropped from AppSecrets of app ${appId} in project ` +
    `${projectId}, but the API has no operation to delete a secret: if the service merges updates they remain in ` +
    "the app with their last values; remove them in the web console if they should go."
  );
}

/** Warning when the resource is deleted: the secrets stay in the app. Names only. */
export function appSecretsDeleteWarning(projectId: string, appId: string, names: readonly string[]): string {
  const which = names.length > 0 ? `secret(s) ${nameList(names)}` : "its secrets";
  return (
    `pulumi-pims: AppSecrets of app ${appId} in project ${projectId} was removed from the stack but ${which} ` +
    "remain in the app: the service has no delete operation for secrets; remove them in the web console if they " +
    "should go."
  );
}

/**
 * The line a preview shows for a change of the map: which names are added, changed and removed, never a value. (The
 * plugin also shows each name in its detailed diff; a dynamic resource has none, so in TypeScript this line is it.)
 */
export function secretChangesLine(
  projectId: string,
  appId: string,
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
): string | undefined {
  const has = (o: Record<string, unknown>, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
  const added = Object.keys(news).filter((k) => !has(olds, k));
  const removed = Object.keys(olds).filter((k) => !has(news, k));
  const changed = Object.keys(news).filter((k) => has(olds, k) && (olds[k] !== news[k] || isUnknown(news[k])));
  const parts = [
    [added, "added"],
    [changed, "changed"],
    [removed, "removed"],
  ].flatMap(([names, what]) => (names.length > 0 ? [`${nameList([...names].sort())} ${what as string}`] : []));
  if (parts.length === 0) return undefined;
  const which = `secret(s) ${parts.join("; ")} (values not shown)`;
  return `pulumi-pims: AppSecrets of app ${appId} in project ${projectId}: ${which}`;
}

// ---- provider -------------------------------------------------------------------------------------------

export class AppSecretsProvider
  extends PimsProviderBase
  implements pulumi.dynamic.ResourceProvider<AppSecretsInputs, AppSecretsOutputs>
{
  // ---- check ----
  /**
   * Validates the inputs at preview, with no HTTP call; values unknown at preview are not validated.
   * Reasons name the secret and the rule, never its value.
   */
  async check(_olds: AppSecretsInputs, news: AppSecretsInputs): Promise<pulumi.dynamic.CheckResult<AppSecretsInputs>> {
    const failures = new Failures();
    failures.requiredId("projectId", news?.projectId);
    failures.requiredId("appId", news?.appId);
    const secrets: unknown = news?.secrets;
    if (secrets === undefined || secrets === null) {
      failures.add("secrets", "secrets is required");
    } else if (secrets === UNKNOWN) {
      // the whole map is unknown at preview: nothing to validate yet
    } else if (!isPlainObject(secrets)) {
      failures.add(
        "secrets",
        "secrets must be a map of secret names to string values (got " +
          `${Array.isArray(secrets) ? "an array" : typeof secrets})`,
      );
    } else if (Object.keys(secrets).length === 0) {
      failures.add(
        "secrets",
        "secrets must contain at least one secret: an empty map would change nothing in the service (its update " +
          "only sets the names it is given, and it has no operation to delete secrets)",
      );
    } else {
      for (const [name, value] of Object.entries(secrets)) {
        if (name.length > SECRET_NAME_MAX) {
          failures.add(
            "secrets",
            `secret name ${quote(name)} must be at most ${SECRET_NAME_MAX} characters (got ${name.length})`,
          );
        } else if (!SECRET_NAME_PATTERN.test(name)) {
          failures.add(
            "secrets",
            `secret name ${quote(name)} must match ${SECRET_NAME_PATTERN.source} (a letter or underscore, then ` +
              "letters, digits or underscores)",
          );
        }
        if (value === undefined || value === null)
          failures.add("secrets", `secret ${quote(name)} has no value: values must be strings`);
        else if (!isUnknown(value) && typeof value !== "string")
          failures.add(
            "secrets",
            `secret ${quote(name)} must have a string value (got ${Array.isArray(value) ? "an array" : typeof value})`,
          );
      }
    }
    return { inputs: news, failures: failures.list };
  }

  // ---- diff ----
  /**
   * Another project or app replaces the resource; any change of names or values is an update, and a progress line
   * names the secrets added, changed and removed (never a value). No call.
   */
  async diff(_id: string, olds: AppSecretsOutputs, news: AppSecretsInputs): Promise<pulumi.dynamic.DiffResult> {
    const replaces = changedKeys(olds, news, REPLACE_ON);
    if (replaces.length > 0) return { changes: true, replaces: [...replaces], deleteBeforeReplace: false };
    const changes = isUnknown(news.secrets) || !sameSecrets(olds.secrets, news.secrets);
    if (changes && isPlainObject(olds.secrets) && isPlainObject(news.secrets)) {
      const line = secretChangesLine(news.projectId, news.appId, olds.secrets, news.secrets);
      if (line) progress(line);
    }
    return { changes };
  }

  // ---- create ----
  /** Sends the full map; the resource id is `${projectId}/${appId}`. */
  async create(inputs: AppSecretsInputs): Promise<pulumi.dynamic.CreateResult<AppSecretsOutputs>> {
    await this.send(inputs);
    return { id: appSecretsId(inputs.projectId, inputs.appId), outs: outputs(inputs) };
  }

  // ---- read ----
  /** No read endpoint: refresh returns the state unchanged. Import (no state to start from) is refused. */
  async read(id: string, props?: AppSecretsOutputs): Promise<pulumi.dynamic.ReadResult<AppSecretsOutputs>> {
    if (
      !props ||
      typeof props.projectId !== "string" ||
      typeof props.appId !== "string" ||
      !isPlainObject(props.secrets)
    ) {
      throw new Error(
        `pulumi-pims: app secrets ${id} cannot be imported: the service has no operation to read secrets. ` +
          "Declare an AppSecrets with the full map of secrets the app should have instead: creating it sends them " +
          "to the app.",
      );
    }
    return { id, props };
  }

  // ---- update ----
  /**
   * Sends the full desired map (correct whether the service merges or replaces). Names dropped from the map
   * cannot be deleted through the API: they are listed in one warning line (names only).
   */
  async update(
    _id: string,
    olds: AppSecretsOutputs,
    news: AppSecretsInputs,
  ): Promise<pulumi.dynamic.UpdateResult<AppSecretsOutputs>> {
    await this.send(news);
    const previous = isPlainObject(olds?.secrets)
      ? Object.keys(olds.secrets)
      : Array.isArray(olds?.secretNames)
        ? olds.secretNames
        : [];
    const removed = previous.filter((k) => !Object.prototype.hasOwnProperty.call(news.secrets, k)).sort();
    if (removed.length > 0) warning(removedKeysWarning(news.projectId, news.appId, removed));
    return { outs: outputs(news) };
  }

  // ---- delete ----
  /** Changes nothing in the service (no HTTP call) and warns that the secrets stay in the app (names only). */
  async delete(id: string, props: AppSecretsOutputs): Promise<void> {
    const [p, a] = id.split("/");
    const names = isPlainObject(props?.secrets)
      ? Object.keys(props.secrets).sort()
      : Array.isArray(props?.secretNames)
        ? props.secretNames
        : [];
    warning(appSecretsDeleteWarning(props?.projectId ?? p, props?.appId ?? a, names));
  }

  /**
   * PATCH /v2/projects/{project_id}/apps/{app_id}/secrets with the full map. Any error text is scrubbed of the values
   * before it leaves the provider.
   */
  private async send(i: AppSecretsInputs): Promise<void> {
    try {
      await this.client().updateAppSecrets(i.projectId, i.appId, { ...i.secrets });
    } catch (e) {
      const values = Object.values(i.secrets ?? {}).filter((v): v is string => typeof v === "string");
      const message = redact(errorText(e), values);
      if (e instanceof Error && message === e.message) throw e;
      // The caught error's text holds the secret values: it must not travel on as a cause.
      // eslint-disable-next-line preserve-caught-error -- see above
      throw new Error(message);
    }
  }
}

// ---- the kind ------------------------------------------------------------------------------------------

/** AppSecrets, as both hosts, the schema and the SDK read it (./kinds lists it). */
export const APP_SECRETS = declareKind<"AppSecrets", AppSecretsInputs, AppSecretsOutputs, AppSecretsProvider>({
  kind: "AppSecrets",
  provider: AppSecretsProvider,
  example: { scenario: "quickstart", title: "A project, a service account and an app's secrets" },
  tsdoc: "AppSecretsOutputs",
  properties: { projectId: STR, appId: STR, secrets: STR_MAP, secretNames: STR_LIST },
  inputs: { projectId: true, appId: true, secrets: true },
  requiredInputs: ["projectId", "appId", "secrets"],
  required: ["projectId", "appId", "secrets", "secretNames"],
  secret: APP_SECRETS_SECRET_OUTPUTS,
  replaceOnChanges: ["projectId", "appId"],
  computedOnCreate: ["secretNames"],
  computedOnUpdate: ["secretNames"],
  // A reviewer sees which secret names are added, changed or removed, never a value.
  memberDiffs: ["secrets"],
});
