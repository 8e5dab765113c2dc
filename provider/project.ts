/**
 * Project: a PIMS project, created with POST /v2/projects.
 *
 * The service has no operation to read, rename or delete a project, so:
 * - a name change replaces the resource (a new project is created first; the old one stays in the service),
 * - `read` (refresh) returns the state unchanged; import ({@link ProjectProvider.importById}, the plugin) takes an
 *   existing project by id once its API-key listing answers (GET /v2/projects/{project_id}/api-keys); its name
 *   cannot be read, so a name never replaces an imported project,
 * - `delete` only removes the project from the stack and warns that it still exists in the service.
 */
import type * as pulumi from "@pulumi/pulumi";
import { warning } from "./client/log";
import { createFailureKind } from "./client/retry";
import { quote } from "./client/values";
import { charLength, Failures, isUnknown } from "./checks";
import { PimsProviderBase } from "./providerBase";
import type { Importable } from "./capabilities";
import { changedKeys, clean } from "./diff";
import { declareKind, STR, STR_LIST } from "./kindDeclaration";

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
  /**
   * For an imported project: `["name"]`, the service cannot tell a project's name. The declared name is then never
   * sent and never replaces the project. Normally absent.
   */
  unreadInputs?: string[];
}

/** Every output key, once: the annotation makes the compiler reject a missing or unknown key. */
const OUTPUT_KEY_SET: Record<keyof ProjectOutputs, true> = { name: true, projectId: true, unreadInputs: true };
/** The output keys, which the SDK class seeds on the resource. */
export const PROJECT_OUTPUT_KEYS = Object.keys(OUTPUT_KEY_SET);

/** Limits of the project name in POST /v2/projects. */
export const PROJECT_NAME_MIN = 2;
export const PROJECT_NAME_MAX = 50;

/** Inputs whose change replaces the project. */
const REPLACE_ON = ["name"] as const;

function outputs(o: ProjectOutputs): ProjectOutputs {
  return clean({ name: o.name, projectId: o.projectId, unreadInputs: o.unreadInputs });
}

/** The one line `delete` writes (stderr of the provider host: the engine shows it as a warning diagnostic). */
export function projectDeleteWarning(projectId: string, name: string | undefined): string {
  const label = typeof name === "string" ? ` (${JSON.stringify(name)})` : "";
  return (
    `pulumi-pims: project ${projectId}${label} was removed from the stack but still exists in the service: ` +
    `the service has no delete operation for projects; remove it in the web console if it should go.`
  );
}

/** What a create that may have created the project says: that it may exist, how to check, and what to do. */
export function uncertainProjectMessage(name: string, startedAt: string, kind: "answered" | "lost"): string {
  const why =
    kind === "lost"
      ? "the service did not answer, and may still create it"
      : "the service failed after it may have created it";
  return (
    `A project named ${JSON.stringify(name)} may exist anyway: ${why}. pulumi-pims did not send the create again, ` +
    "because the service cannot list or delete projects and a second attempt could leave a second project. Before " +
    "you run `pulumi up` again, check in the service's web console for a project named " +
    `${JSON.stringify(name)} created after ${startedAt}. If it exists, use it: pass its id (a string, e.g. from ` +
    "stack config) wherever a projectId is needed instead of declaring this Project, or the next `pulumi up` " +
    "creates another one. If it does not, run `pulumi up` again."
  );
}

// ---- provider -------------------------------------------------------------------------------------------

export class ProjectProvider
  extends PimsProviderBase
  implements pulumi.dynamic.ResourceProvider<ProjectInputs, ProjectOutputs>, Importable
{
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
          failures.add(
            "name",
            `name must be ${PROJECT_NAME_MIN} to ${PROJECT_NAME_MAX} characters (got ${n}: ${quote(name)})`,
          );
        }
      }
    }
    return { inputs: news, failures: failures.list };
  }

  // ---- diff ----
  /**
   * A name change (or a name unknown at preview) replaces the project; the new one is created first. Nothing else
   * changes, so there is no update: diff never answers an in-place change.
   */
  async diff(_id: string, olds: ProjectOutputs, news: ProjectInputs): Promise<pulumi.dynamic.DiffResult> {
    // An imported project's name was never read: declaring one is no change (a new name would make a new project).
    const replaces = changedKeys(olds, news, REPLACE_ON).filter((k) => !(olds.unreadInputs ?? []).includes(k));
    return replaces.length > 0
      ? { changes: true, replaces: [...replaces], deleteBeforeReplace: false }
      : { changes: false };
  }

  // ---- create ----
  /**
   * POST /v2/projects; the resource id is the project id the service returns. Never sent again after a failure that
   * may have created the project (the client repeats a POST only when the service did nothing): the service cannot
   * list or delete projects, so a repeat could leave a second project nobody can remove.
   */
  async create(inputs: ProjectInputs): Promise<pulumi.dynamic.CreateResult<ProjectOutputs>> {
    const startedAt = new Date().toISOString();
    try {
      const projectId = await this.client().createProject({ name: inputs.name });
      return { id: projectId, outs: outputs({ name: inputs.name, projectId }) };
    } catch (e) {
      const kind = createFailureKind(e);
      if (kind === "none") throw e;
      throw new Error(`${(e as Error).message}\n${uncertainProjectMessage(inputs.name, startedAt, kind)}`, {
        cause: e,
      });
    }
  }

  // ---- read ----
  /** No read endpoint: refresh returns the state unchanged. Import: {@link importById} (the plugin). */
  async read(id: string, props?: ProjectOutputs): Promise<pulumi.dynamic.ReadResult<ProjectOutputs>> {
    if (!props || typeof props.projectId !== "string") {
      throw new Error(
        `pulumi-pims: project ${id} cannot be read: no state to start from. In YAML, Python, Go and Java use ` +
          "`pulumi import pims:index:Project <name> <projectId>`; in TypeScript (a dynamic resource, which the " +
          "engine's import cannot reach) use the existing project's id directly (a string or stack config) " +
          "wherever a projectId is needed.",
      );
    }
    return { id, props };
  }

  /**
   * `pulumi import` through the plugin, id = the project id: the project exists when its API-key listing
   * (GET /v2/projects/{project_id}/api-keys) answers; any failure refuses the import with the listing's error. The
   * service cannot tell the name: the program is generated with the id as its name, and a name never replaces an
   * imported project (it is never sent).
   */
  async importById(id: string): Promise<{ id: string; props: ProjectOutputs; inputs: ProjectInputs }> {
    try {
      await this.client().listApiKeys(id);
    } catch (e) {
      throw new Error(`pulumi-pims: cannot import project ${id}: ${(e as Error).message}`, { cause: e });
    }
    warning(
      `pulumi-pims: project ${id} imported; the service cannot tell its name: the generated program names it ` +
        `${JSON.stringify(id)}; any name may be declared (it is never sent, and never replaces an imported project).`,
    );
    return { id, props: outputs({ name: id, projectId: id, unreadInputs: ["name"] }), inputs: { name: id } };
  }

  // ---- delete ----
  /** No delete endpoint: removes the project from the stack only, and says so in one warning line. No HTTP call. */
  async delete(id: string, props: ProjectOutputs): Promise<void> {
    warning(projectDeleteWarning(props?.projectId ?? id, props?.name));
  }
}

// ---- the kind ------------------------------------------------------------------------------------------

/** Project, as both hosts, the schema and the SDK read it (./kinds lists it). */
export const PROJECT = declareKind<"Project", ProjectInputs, ProjectOutputs, ProjectProvider>({
  kind: "Project",
  provider: ProjectProvider,
  capabilities: (p) => ({ importable: p }),
  pluginDoc: [
    "Import: `pulumi import pims:index:Project <name> <projectId>` takes an existing project once its API-key",
    "listing answers (refused otherwise). The service cannot tell its name: a declared name is never sent and never",
    "replaces an imported project.",
  ].join("\n"),
  example: { scenario: "quickstart", title: "A project, a service account and an app's secrets" },
  tsdoc: "ProjectOutputs",
  properties: { name: STR, projectId: STR, unreadInputs: STR_LIST },
  inputs: { name: true },
  requiredInputs: ["name"],
  required: ["name", "projectId"],
  secret: [],
  replaceOnChanges: ["name"],
  computedOnCreate: ["projectId"],
  computedOnUpdate: [],
});
