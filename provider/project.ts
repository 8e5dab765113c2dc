/**
 * Project: a PIMS project, created with POST /v2/projects.
 *
 * The service has no operation to read, rename or delete a project, so:
 * - a name change replaces the resource (a new project is created first; the old one stays in the service),
 * - `read` (refresh) returns the state unchanged, and import is refused (there is nothing to read),
 * - `delete` only removes the project from the stack and warns that it still exists in the service.
 */
import type * as pulumi from "@pulumi/pulumi";
import { quote } from "./client/values";
import { clean, charLength, Failures, isUnknown, PimsProviderBase } from "./common";

// ---- types ----------------------------------------------------------------------------------------------

/** What the program declares (the SDK's `ProjectArgs` are these, each a `pulumi.Input`). */
export interface ProjectInputs {
  /**
   * Name of the project: 2 to 50 characters (counted as a person counts them).
   * Changing it replaces the project: a new project is created and the old one stays in the service
   * (the service has no rename or delete operation).
   */
  name: string;
}

/** What the state holds (and what `diff` receives as `olds`); the SDK class's output properties are these. */
export interface ProjectOutputs extends ProjectInputs {
  /** The id the service gave the project, e.g. `p-1a2b3c4d`; also the resource id. */
  projectId: string;
}

/** Every output key, once: the annotation makes the compiler reject a missing or unknown key. */
const OUTPUT_KEY_SET: Record<keyof ProjectOutputs, true> = { name: true, projectId: true };
/** The output keys, which the SDK class seeds on the resource. */
export const PROJECT_OUTPUT_KEYS = Object.keys(OUTPUT_KEY_SET);

/** Limits of the project name in POST /v2/projects. */
export const PROJECT_NAME_MIN = 2;
export const PROJECT_NAME_MAX = 50;

/** Inputs whose change replaces the project. */
const REPLACE_ON = ["name"] as const;

function outputs(o: ProjectOutputs): ProjectOutputs {
  return clean({ name: o.name, projectId: o.projectId });
}

/** The one line `delete` writes (stderr of the provider host: the engine shows it as a warning diagnostic). */
export function projectDeleteWarning(projectId: string, name: string | undefined): string {
  const label = typeof name === "string" ? ` (${JSON.stringify(name)})` : "";
  return (
    `pulumi-pims: project ${projectId}${label} was removed from the stack but still exists in the service: ` +
    `the service has no delete operation for projects; remove it in the web console if it should go.`
  );
}

// ---- provider -------------------------------------------------------------------------------------------

export class ProjectProvider extends PimsProviderBase implements pulumi.dynamic.ResourceProvider<ProjectInputs, ProjectOutputs> {
  // ---- check ----
  /** Validates the inputs at preview, with no HTTP call. Values unknown at preview are not validated. */
  async check(_olds: ProjectInputs, news: ProjectInputs): Promise<pulumi.dynamic.CheckResult<ProjectInputs>> {
    const failures = new Failures();
    const name: unknown = news?.name;
    if (name === undefined || name === null) {
      failures.add("name", "name is required");
    } else if (!isUnknown(name)) {
      if (typeof name !== "string") {
        failures.add("name", `name must be a string (got ${typeof name})`);
      } else {
        const n = charLength(name);
        if (n < PROJECT_NAME_MIN || n > PROJECT_NAME_MAX) {
          failures.add("name", `name must be ${PROJECT_NAME_MIN} to ${PROJECT_NAME_MAX} characters (got ${n}: ${quote(name)})`);
        }
      }
    }
    return { inputs: news, failures: failures.list };
  }

  // ---- diff ----
  /** A name change (or a name unknown at preview) replaces the project; the new one is created first. */
  async diff(_id: string, olds: ProjectOutputs, news: ProjectInputs): Promise<pulumi.dynamic.DiffResult> {
    const replaces = REPLACE_ON.filter((k) => isUnknown(news[k]) || news[k] !== olds[k]);
    return replaces.length > 0 ? { changes: true, replaces: [...replaces], deleteBeforeReplace: false } : { changes: false };
  }

  // ---- create ----
  /** POST /v2/projects; the resource id is the project id the service returns. */
  async create(inputs: ProjectInputs): Promise<pulumi.dynamic.CreateResult<ProjectOutputs>> {
    const projectId = await this.client().createProject({ name: inputs.name });
    return { id: projectId, outs: outputs({ name: inputs.name, projectId }) };
  }

  // ---- read ----
  /** No read endpoint: refresh returns the state unchanged. Import (no state to start from) is refused. */
  async read(id: string, props?: ProjectOutputs): Promise<pulumi.dynamic.ReadResult<ProjectOutputs>> {
    if (!props || typeof props.name !== "string") {
      throw new Error(
        `pulumi-pims: project ${id} cannot be imported: the service has no operation to read a project. ` +
          `Use the existing project's id directly (a string or stack config) wherever a projectId is needed, or declare a new Project.`,
      );
    }
    return { id, props };
  }

  // ---- update ----
  /** Not reached in practice (every change replaces); keeps the outputs intact if the engine calls it. */
  async update(id: string, olds: ProjectOutputs, news: ProjectInputs): Promise<pulumi.dynamic.UpdateResult<ProjectOutputs>> {
    if (news.name !== olds.name) {
      throw new Error(`pulumi-pims: project ${id} cannot be renamed in place (the service has no rename operation); a name change replaces the project.`);
    }
    return { outs: outputs({ name: olds.name, projectId: olds.projectId ?? id }) };
  }

  // ---- delete ----
  /** No delete endpoint: removes the project from the stack only, and says so in one warning line. No HTTP call. */
  async delete(id: string, props: ProjectOutputs): Promise<void> {
    console.warn(projectDeleteWarning(props?.projectId ?? id, props?.name));
  }
}
