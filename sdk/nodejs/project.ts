import * as pulumi from "@pulumi/pulumi";
import { PROJECT_OUTPUT_KEYS, type ProjectInputs, type ProjectOutputs } from "../../provider/project";
import { resourceProps, type Inputs, type OutputProps } from "./inputs";
import { providerShim } from "./shim";

/** Arguments of {@link Project}: the inputs documented on `ProjectInputs`, each a `pulumi.Input`. */
export interface ProjectArgs extends Inputs<ProjectInputs> {}

/** The outputs of {@link Project} (documented on `ProjectOutputs`), merged into the class. */
export interface Project extends OutputProps<ProjectOutputs> {}

/**
 * A PIMS project, created with `POST /v2/projects`.
 *
 * Behaviour and limits:
 * - `name` must be 2 to 50 characters; a bad name fails at preview, before any call to the service.
 * - The service has no operation to read, rename or delete a project. Changing `name` therefore **replaces**
 *   the resource: a new project is created (with a new `projectId`) and the old one is left in the service.
 * - **Delete** (`pulumi destroy`, removing the resource, or the old half of a replacement) only removes the
 *   project from the stack: the project still exists in the service, and a one-line message (shown under Diagnostics)
 *   says so. Remove it in the web console if it should go.
 * - **Refresh** cannot see the service's copy (no read operation): it leaves the state unchanged.
 *
 * Credentials: stack config `pims:token` (secret) and `pims:baseUrl`, or `PIMS_TOKEN` / `PIMS_BASE_URL`.
 *
 * @remarks
 * `pulumi import` and the `import` resource option do not work for dynamic resources (and there is nothing to
 * read here anyway). To use a project that already exists, pass its id as a plain string (e.g. from stack
 * config) wherever a `projectId` is expected, instead of declaring a `Project`.
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
  /**
   * @param name The unique name of this resource in the Pulumi program (not the project's name).
   * @param args The project's settings.
   * @param opts Resource options.
   */
  constructor(name: string, args: ProjectArgs, opts?: pulumi.CustomResourceOptions) {
    super(providerShim("Project"), name, resourceProps(args, PROJECT_OUTPUT_KEYS), opts, "pims", "Project");
  }
}
