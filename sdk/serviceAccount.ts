import * as pulumi from "@pulumi/pulumi";
import { providerShim } from "./shim";

/** Arguments of a {@link ServiceAccount}. Changing any of them replaces the account (and its token). */
export interface ServiceAccountArgs {
  /** Id of the project that owns the account, e.g. `p-1a2b3c4d`. */
  projectId: pulumi.Input<string>;
  /** Name of the account: 1 to 100 characters. */
  name: pulumi.Input<string>;
  /** Description: at most 500 characters. Default "". */
  description?: pulumi.Input<string>;
  /**
   * Ids of the projects the account may access: 1 to 50 entries, no duplicates. Order does not matter
   * (reordering the list changes nothing).
   */
  grants: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * Lifetime of the token in seconds: an integer from 0 to 31536000 (one year). 0 = the token never expires.
   */
  expiresIn: pulumi.Input<number>;
  /**
   * Any string; changing it replaces the account, which issues a new token (a manual rotation). For example a
   * date (`"2025-06"`) or a counter. Omit it when you do not rotate manually.
   */
  rotationTrigger?: pulumi.Input<string>;
  /**
   * Automatic rotation window, in whole seconds (≥ 0): once the token's expiry minus this window has passed,
   * the next `pulumi up` replaces the account and so issues a new token (0 = rotate once the token has
   * expired). Must be less than `expiresIn`. Has no effect on a token that never expires (`expiresIn` 0).
   * Rotation happens only when you run `pulumi up`: schedule it (e.g. a daily CI job) well within the window.
   */
  rotateBeforeExpiry?: pulumi.Input<number>;
}

/**
 * A PIMS service account and its token.
 *
 * Creating the resource creates a service account in `projectId` with access to the `grants` projects, and
 * stores the account's token in the `token` output. The service returns the token's secret only once, in the
 * creation response: this resource keeps it in the stack's state as a Pulumi secret (encrypted, and masked in
 * the CLI), so read it from `token` — it cannot be fetched from the service again.
 *
 * **Every change replaces.** The service cannot update an account, so changing any argument creates a new
 * account (with a new token) and then deletes the old one. The new one is created first, so anything that
 * consumes `token` (e.g. an `AppSecrets` resource) is switched to the new token before the old one stops
 * working. Do not set `deleteBeforeReplace` on this resource.
 *
 * **Rotation.** Change `rotationTrigger` to rotate on demand, or set `rotateBeforeExpiry` to rotate
 * automatically: once the token's expiry minus that many seconds has passed, the next `pulumi up` (and
 * `pulumi preview`) shows a replacement. A token created with `expiresIn: 0` never expires and is never
 * rotated by `rotateBeforeExpiry`.
 *
 * **Refresh** (`pulumi refresh`) keeps the stored outputs as they are, token included: the service has no
 * way to read an account, so a refresh does not notice an account deleted outside Pulumi (the next
 * replacement or destroy treats an already-deleted account as deleted).
 *
 * **No import.** `pulumi import` and the `import` resource option do not work for dynamic resources, and an
 * existing account could not be adopted anyway: its token cannot be read again. Create a new ServiceAccount
 * instead and delete the old account once nothing uses it.
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 *
 * const ci = new pims.ServiceAccount("ci", {
 *   projectId: project.id,
 *   name: "ci-deployer",
 *   description: "Deploys from CI",
 *   grants: [project.id],
 *   expiresIn: 90 * 24 * 3600,         // 90 days
 *   rotateBeforeExpiry: 14 * 24 * 3600, // new token once fewer than 14 days are left
 * });
 * export const ciToken = ci.token;      // a secret output
 * ```
 */
export class ServiceAccount extends pulumi.dynamic.Resource {
  // `declare`, not `!`: with target ES2022 (useDefineForClassFields) a `!` field is emitted as a class field
  // that resets the output to undefined after super() has set it.
  /** Id of the project that owns the account. */
  declare public readonly projectId: pulumi.Output<string>;
  /** Name of the account. */
  declare public readonly name: pulumi.Output<string>;
  /** Description of the account ("" when none was given). */
  declare public readonly description: pulumi.Output<string>;
  /** Ids of the projects the account may access, as declared. */
  declare public readonly grants: pulumi.Output<string[]>;
  /** Token lifetime in seconds, as declared (0 = never expires). */
  declare public readonly expiresIn: pulumi.Output<number>;
  /** The rotation trigger, as declared. */
  declare public readonly rotationTrigger: pulumi.Output<string | undefined>;
  /** The automatic rotation window in seconds, as declared. */
  declare public readonly rotateBeforeExpiry: pulumi.Output<number | undefined>;
  /** The account's id (also the resource's id). */
  declare public readonly serviceAccountId: pulumi.Output<string>;
  /** When the account was created, RFC 3339. */
  declare public readonly createdAt: pulumi.Output<string>;
  /** Id of the user who created the account. */
  declare public readonly createdByUserId: pulumi.Output<string>;
  /** Id of the account's token. */
  declare public readonly tokenId: pulumi.Output<string>;
  /** When the token expires, RFC 3339, or `never`. */
  declare public readonly tokenExpiresAt: pulumi.Output<string>;
  /**
   * The token's secret value, to send as `Authorization: Bearer <token>`. A secret output: encrypted in state
   * and masked in the CLI. Issued once, at creation; a replacement issues a new one.
   */
  declare public readonly token: pulumi.Output<string>;

  /**
   * @param name The unique name of the resource (Pulumi's logical name, not the account's name).
   * @param args The account's arguments.
   * @param opts Resource options. `additionalSecretOutputs: ["token"]` is always added.
   */
  constructor(name: string, args: ServiceAccountArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerShim("ServiceAccount"),
      name,
      {
        projectId: args.projectId,
        name: args.name,
        description: args.description,
        grants: args.grants,
        expiresIn: args.expiresIn,
        rotationTrigger: args.rotationTrigger,
        rotateBeforeExpiry: args.rotateBeforeExpiry,
        // Outputs: seeded so they appear on the resource.
        serviceAccountId: undefined,
        createdAt: undefined,
        createdByUserId: undefined,
        tokenId: undefined,
        tokenExpiresAt: undefined,
        token: undefined,
      },
      pulumi.mergeOptions(opts, { additionalSecretOutputs: ["token"] }),
      "pims",
      "ServiceAccount",
    );
  }
}
