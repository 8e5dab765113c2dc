import * as pulumi from "@pulumi/pulumi";
import {
  APP_SECRETS_OUTPUT_KEYS,
  APP_SECRETS_SECRET_OUTPUTS,
  type AppSecretsInputs,
  type AppSecretsOutputs,
} from "../../provider/appSecrets";
import { resourceProps, type Inputs, type OutputProps } from "./inputs";
import { providerShim } from "./shim";

/** Arguments of {@link AppSecrets}: the inputs documented on `AppSecretsInputs`, each a `pulumi.Input`. */
export interface AppSecretsArgs extends Inputs<AppSecretsInputs> {}

/** The outputs of {@link AppSecrets} (documented on `AppSecretsOutputs`), merged into the class. */
export interface AppSecrets extends OutputProps<AppSecretsOutputs> {}

/**
 * Secrets of a PIMS app, set with `PATCH /v2/projects/{project_id}/apps/{app_id}/secrets`.
 *
 * The service does not say whether this update merges into or replaces the app's secrets, and it has no
 * operation to read or delete secrets. This resource behaves correctly under both:
 * - Create and every update send the **full** desired map, so afterwards every secret in it has exactly its declared
 *   value.
 * - Adding or changing a secret updates it in place. Removing a name from `secrets`: under a replacing service the
 *   secret disappears; under a merging service it stays in the app with its last value, because the API cannot
 *   delete it. The update prints a one-line message (shown under Diagnostics) naming the removed secrets (never
 *   their values).
 * - On create, a replacing service also drops secrets the app had that are not in this map: manage all of an
 *   app's secrets with one `AppSecrets`.
 * - Names and value types are checked at preview, with no call to the service; failures name the secret and the
 *   rule, never a value. An empty map is rejected (it would change nothing).
 * - Changing `projectId` or `appId` replaces the resource (the new app gets the map; the old app keeps its secrets).
 * - **Delete** changes nothing in the service: the secrets stay in the app, and a one-line message lists their names.
 *   Remove them in the web console if they should go.
 * - **Refresh** cannot read the secrets (no read operation): it leaves the state unchanged.
 * - To take over an app's existing secrets, declare an `AppSecrets` with the full map the app should have.
 * - `secrets` is secret in the state (inputs and outputs); `secretNames` is not, for display.
 *
 * Credentials: stack config `pims:token` (secret) and `pims:baseUrl`, or `PIMS_TOKEN` / `PIMS_BASE_URL`.
 *
 * @remarks
 * `pulumi import` and the `import` resource option do not work for dynamic resources: declare the full map as
 * above.
 *
 * @example
 * ```ts
 * import * as pulumi from "@pulumi/pulumi";
 * import * as pims from "pulumi-pims";
 *
 * const cfg = new pulumi.Config();
 * new pims.AppSecrets("web", {
 *   projectId: "p-1a2b3c4d",
 *   appId: "p-1a2b3c4d-web",
 *   secrets: { DATABASE_URL: cfg.requireSecret("databaseUrl"), LOG_LEVEL: "info" },
 * });
 * ```
 */
export class AppSecrets extends pulumi.dynamic.Resource {
  /**
   * @param name The unique name of this resource in the Pulumi program.
   * @param args Which app, and its secrets.
   * @param opts Resource options.
   */
  constructor(name: string, args: AppSecretsArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerShim("AppSecrets"),
      name,
      // the map travels as a secret input, so the state's inputs hold it encrypted too
      { ...resourceProps(args, APP_SECRETS_OUTPUT_KEYS), secrets: pulumi.secret(args.secrets) },
      pulumi.mergeOptions(opts, { additionalSecretOutputs: APP_SECRETS_SECRET_OUTPUTS }),
      "pims",
      "AppSecrets",
    );
  }
}
