/**
 * The one-ServiceAccount stack the engine suites run in either host, written once: one account declared by a resource
 * name, its inputs and the stack outputs taken from it, as a TypeScript program (the dynamic provider) or as a YAML
 * program (the plugin) with the same inputs; and `useOneAccountStack`, useEngineStack over it with the PIMS project
 * it lives in seeded first. `accountYaml` is one account's entry of a YAML program's `resources:`, for programs that
 * declare several.
 */
import * as path from "node:path";
import type { PulumiFn } from "@pulumi/pulumi/automation";
import * as pims from "pulumi-pims";
import type { ServiceAccountInputs, ServiceAccountOutputs } from "../../../provider/serviceAccount";
import { writeYamlProject } from "../../../scripts/engine/yaml";
import { type EngineSuite, type SuiteStack, useEngineStack } from "./engineSuite";

/** The two hosts: a TypeScript program through the dynamic provider, a YAML program through the plugin. */
export type Host = "typescript" | "yaml";

/** A describe's words for a host: `through the dynamic provider (TypeScript)`, `through the plugin (YAML)`. */
export const through = (host: Host): string =>
  host === "yaml" ? "through the plugin (YAML)" : "through the dynamic provider (TypeScript)";

/** An account's inputs as a suite gives them: `grants` is `[projectId]` unless given. */
export type AccountInputs = Omit<ServiceAccountInputs, "grants"> & { grants?: string[] };

/** The one account of the program. */
export interface OneAccount {
  /** The resource's name in the program. */
  resource: string;
  /**
   * Its inputs. A function is called at each run of the TypeScript program (a test changes what it returns between
   * runs); the YAML program is written once, from its first answer.
   */
  inputs: AccountInputs | (() => AccountInputs);
  /** The stack outputs, each one of the account's outputs by name: `{ id: "serviceAccountId" }`. */
  outputs?: Record<string, keyof ServiceAccountOutputs>;
}

/** The inputs as the program declares them: `grants` filled in, nothing undefined. */
function declared(a: Pick<OneAccount, "inputs">): ServiceAccountInputs {
  const inputs = typeof a.inputs === "function" ? a.inputs() : a.inputs;
  const all: Record<string, unknown> = { ...inputs, grants: inputs.grants ?? [inputs.projectId] };
  return Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined)) as unknown as ServiceAccountInputs;
}

/**
 * One account's entry of a YAML program's `resources:` (indented as a member of it): each input a JSON value, which
 * YAML reads as written (`${…}` interpolations included); `options` as given (`{ provider: "${scoped}" }`).
 */
export function accountYaml(resource: string, inputs: AccountInputs, options: Record<string, string> = {}): string {
  const lines = [`  ${resource}:`, "    type: pims:index:ServiceAccount", "    properties:"];
  for (const [k, v] of Object.entries(declared({ inputs }))) lines.push(`      ${k}: ${JSON.stringify(v)}`);
  if (Object.keys(options).length > 0) lines.push("    options:");
  for (const [k, v] of Object.entries(options)) lines.push(`      ${k}: ${v}`);
  return `${lines.join("\n")}\n`;
}

/** The YAML program of the one account: its entry, then its stack outputs. */
export function oneAccountYaml(a: OneAccount): string {
  const outputs = Object.entries(a.outputs ?? {}).map(([name, key]) => `  ${name}: \${${a.resource}.${key}}\n`);
  const stackOutputs = outputs.length > 0 ? `outputs:\n${outputs.join("")}` : "";
  return `resources:\n${accountYaml(a.resource, declared(a))}${stackOutputs}`;
}

/** The TypeScript program of the one account: its inputs read at each run, its stack outputs returned. */
export const oneAccountProgram =
  (a: OneAccount): PulumiFn =>
  async () => {
    const sa = new pims.ServiceAccount(a.resource, declared(a));
    return Object.fromEntries(Object.entries(a.outputs ?? {}).map(([name, key]) => [name, sa[key]]));
  };

/** The stack of the one account in `host`: stack `dev` of Pulumi project `project`, in `<scratch>/<host>`. */
export function oneAccountStack(host: Host, scratch: string, project: string, a: OneAccount): SuiteStack {
  const workDir = path.join(scratch, host);
  if (host === "yaml")
    return {
      stackName: "dev",
      yaml: true,
      workDir: writeYamlProject(workDir, { name: project, program: oneAccountYaml(a) }),
    };
  return { stackName: "dev", projectName: project, workDir, program: oneAccountProgram(a) };
}

export interface OneAccountSuiteOptions {
  host: Host;
  /** The Pulumi project's name; the seeded PIMS project and the scratch directory are named after it. */
  project: string;
  /** In beforeAll, once the PIMS project `home` is seeded: seeds what else the suite needs, declares the account. */
  account(suite: EngineSuite, home: string): OneAccount | Promise<OneAccount>;
}

/** A one-account suite: the engine suite, and the seeded project's id (once beforeAll has run). */
export interface OneAccountSuite {
  suite: EngineSuite;
  home(): string;
}

/**
 * {@link useEngineStack} for the one-account stack in `host` (the YAML host for YAML): a PIMS project named after the
 * Pulumi project seeded in the first simulator, then the account the suite declares in it. Call it at the top of a
 * `describe`.
 */
export function useOneAccountStack(o: OneAccountSuiteOptions): OneAccountSuite {
  let home = "";
  const suite = useEngineStack({
    scratchPrefix: `${o.project}-${o.host}-`,
    yamlHost: o.host === "yaml",
    stack: async (s) => {
      home = s.sim.addProject({ name: o.project }).id;
      return oneAccountStack(o.host, s.scratch, o.project, await o.account(s, home));
    },
  });
  return { suite, home: () => home };
}
