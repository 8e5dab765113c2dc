import * as pulumi from "@pulumi/pulumi";
import { providerShim } from "./shim";

/** Arguments of {@link Project}. */
export interface ProjectArgs {
  /**
   * Name of the project: 2 to 50 characters (counted as a person counts them).
   * Changing it replaces the project: a new project is created and the old one stays in the service
   * (the service has no rename or delete operation).
   */
  name: pulumi.Input<string>;
}

/**
 * A PIMS project (operation 5, `POST /v2/projects`).
 *
 * Behaviour and limits:
 * - `name` must be 2 to 50 characters; a bad name fails at preview, before any call to the service.
 * - The service has no operation to read, rename or delete a project. Changing `name` therefore **replaces**
 *   the resource: a new project is created (with a new `projectId`) and the old one is left in the service.
 * - **Delete** (`pulumi destroy`, removing the resource, or the old half of a replacement) only removes the
 *   project from the stack: the project still exists in the service, and a one-line message (shown under Diagnostics)
 *   says so. Remove it in the
 *   web console if it should go.
 * - **Refresh** cannot see the service's copy (no read operation): it leaves the state unchanged.
 * - `pulumi import` and the `import` resource option do not work for dynamic resources (and there is nothing to
 *   read here anyway). To use a project that already exists, pass its id as a plain string (e.g. from stack
 *   config) wherever a `projectId` is expected, instead of declaring a `Project`.
 *
 * Credentials: stack config `pims:token` (secret) and `pims:baseUrl`, or `PIMS_TOKEN` / `PIMS_BASE_URL`.
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 *
 * const project = new pims.Project("shop", { name: "shop-prod" });
 * export const projectId = project.projectId;
 * ```
 */
export class Project extends pulumi.dynamic.Resource {
  /** The project's name, as created (2 to 50 characters). */
  declare public readonly name: pulumi.Output<string>;
  /** The id the service gave the project, e.g. `p-1a2b3c4d`; also the resource id. */
  declare public readonly projectId: pulumi.Output<string>;

  /**
   * @param name The unique name of this resource in the Pulumi program (not the project's name).
   * @param args The project's settings.
   * @param opts Resource options.
   */
  constructor(name: string, args: ProjectArgs, opts?: pulumi.CustomResourceOptions) {
    super(providerShim("Project"), name, { name: args.name, projectId: undefined }, opts, "pims", "Project");
  }
}
