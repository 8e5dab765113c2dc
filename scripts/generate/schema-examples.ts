/**
 * The examples of the schema's descriptions (`{{% examples %}}`, the shortcodes Pulumi's docs tooling and SDK
 * generators read: each SDK keeps the code block of its own language in its doc comments, the registry shows them
 * all). Each is an example project of examples/, its program in every language that has it, read when
 * `npm run schema` runs: an example in the schema is always one of the projects the engine tests compile and run
 * (tests/engine/examples/compile, examples/quickstart, examples/scenarios), and the committed schema is stale
 * (tests/unit/plugin/schema.test.ts fails) as soon as one of them changes.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { nativeToken } from "../../provider/identity";
import type { KindExample } from "../../provider/kindDeclaration";
import { KINDS } from "../../provider/kinds";

const EXAMPLES_DIR = path.join(__dirname, "..", "..", "examples");

/** A language's program file in an example project, and how it names a resource or function of the schema. */
interface Language {
  /** The fence's language, as Pulumi's docs tooling names it. */
  fence: string;
  program(projectDir: string): string;
  /** Whether the program uses `name` (a resource kind, e.g. `ServiceAccount`, or a function, e.g. `getApiKeys`). */
  uses(text: string, name: string): boolean;
}

const camelToSnake = (s: string): string => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The languages in the order the registry shows them. */
const LANGUAGES: Record<string, Language> = {
  typescript: {
    fence: "typescript",
    program: (d) => path.join(d, "index.ts"),
    uses: (t, n) => new RegExp(`pims\\s*\\.${n}`).test(t),
  },
  python: {
    fence: "python",
    program: (d) => path.join(d, "__main__.py"),
    uses: (t, n) => t.includes(`pims.${/^get/.test(n) ? camelToSnake(n) : n}`),
  },
  go: {
    fence: "go",
    program: (d) => path.join(d, "main.go"),
    uses: (t, n) => t.includes(/^get/.test(n) ? `pims.${n[0].toUpperCase()}${n.slice(1)}` : `pims.New${n}(`),
  },
  java: {
    fence: "java",
    program: (d) => {
      const src = path.join(d, "src", "main", "java");
      const [pkg] = fs.readdirSync(src);
      return path.join(src, pkg, "App.java");
    },
    uses: (t, n) => (/^get/.test(n) ? t.includes(`PimsFunctions.${n}(`) : t.includes(`new ${n}(`)),
  },
  yaml: {
    fence: "yaml",
    program: (d) => path.join(d, "Pulumi.yaml"),
    uses: (t, n) => t.includes(nativeToken(n)),
  },
};

/**
 * Which example project shows each resource and function (by its name in the schema's tokens), and its title: each
 * kind's from its declaration (`example`, provider/kinds.ts), the functions' here.
 */
export const SCHEMA_EXAMPLES: Record<string, KindExample> = {
  ...Object.fromEntries(KINDS.flatMap((k) => (k.example === undefined ? [] : [[k.kind, k.example]]))),
  getApiKeys: { scenario: "environments", title: "One program, one stack per environment" },
  getInvoices: { scenario: "multi-account", title: "Several accounts and services" },
  getAppLogs: { scenario: "functions", title: "An app's recent error lines and a build's status" },
  getBuildLogs: { scenario: "functions", title: "An app's recent error lines and a build's status" },
  // cancelRun has none: it is an action, not a read (declared in a program it would cancel the run on every preview
  // and up); runs are cancelled from the CLI or a one-off program, as its description says.
};

/**
 * How each language's program of an example relates to its YAML program, the source the issue names ("made from the
 * YAML example by `pulumi convert` where that works and written by hand where it does not"). TypeScript, Python and
 * Go: `pulumi convert --from yaml` (converter v1.38.3, scripts/toolchain/ensure-language-yaml) converts every YAML
 * example, through PCL and Pulumi's own program generators (scripts/generate/gen-sdk/run --program: the generators the
 * official hosts run, which cannot be obtained here); tests/engine/convert.test.ts converts each example and checks
 * that the committed program calls every class and function the converted one calls. The committed programs finish what
 * the converter writes by hand: required config read with `require`, defaults and conditionals YAML lacks (and the
 * optional parts they turn on), lists mapped where YAML exports them whole, comments. Java is written by hand (see
 * `why`), and so is every language of the examples in {@link YAML_NOT_CONVERTED}.
 */
export const FROM_YAML: Record<"typescript" | "python" | "go" | "java", { converted: boolean; why: string }> = {
  typescript: { converted: true, why: "converted (PCL, then pkg/v3 codegen/nodejs), finished by hand" },
  python: { converted: true, why: "converted (PCL, then pkg/v3 codegen/python), finished by hand" },
  go: { converted: true, why: "converted (PCL, then pkg/v3 codegen/go), finished by hand" },
  java: {
    converted: false,
    why:
      "`pulumi convert --language java` runs the Java host, and the one that builds here (v1.16.0) fails after " +
      "writing the program (linking the SDK: `proto: cannot parse invalid wire-format data`); what it writes imports " +
      "`com.pulumi.pims` (not the SDK's `pulumipims.pims`) and reads required config as `Optional`",
  },
};

/** The program without its leading comment (the project's README says what the header says). */
function body(text: string, fence: string): string {
  let lines = text.split("\n");
  if (fence === "python" && lines[0].startsWith('"""')) {
    const oneLine = lines[0].length > 3 && lines[0].trimEnd().endsWith('"""');
    const end = oneLine ? 0 : lines.findIndex((l, i) => i > 0 && l.includes('"""'));
    lines = lines.slice(end + 1);
  } else if (fence !== "yaml") {
    while (lines.length > 0 && /^\s*(\/\/|\/\*\*|\*)/.test(lines[0])) lines = lines.slice(1);
  }
  return lines.join("\n").trim();
}

/** The code blocks of `name`'s example, one per language whose program uses it. */
export function exampleBlocks(name: string): Array<{ fence: string; code: string }> {
  const ex = SCHEMA_EXAMPLES[name];
  if (ex === undefined) return [];
  return Object.entries(LANGUAGES).flatMap(([dir, lang]) => {
    const file = lang.program(path.join(EXAMPLES_DIR, ex.scenario, dir));
    const text = fs.readFileSync(file, "utf8");
    return lang.uses(text, name) ? [{ fence: lang.fence, code: body(text, lang.fence) }] : [];
  });
}

/** `description` followed by `name`'s example in the shortcodes Pulumi's tooling reads (unchanged without one). */
export function withExamples(description: string, name: string): string {
  const blocks = exampleBlocks(name);
  if (blocks.length === 0) return description;
  const ex = SCHEMA_EXAMPLES[name];
  return [
    description,
    "",
    "{{% examples %}}",
    "## Example Usage",
    "{{% example %}}",
    `### ${ex.title}`,
    "",
    `The example project \`examples/${ex.scenario}\` of the pulumi-pims repository, in every language it has.`,
    "",
    ...blocks.flatMap((b) => ["```" + b.fence, b.code, "```", ""]),
    "{{% /example %}}",
    "{{% /examples %}}",
  ].join("\n");
}

/** The examples whose YAML program `pulumi convert` cannot convert, and why (convert.test.ts checks it still fails). */
export const YAML_NOT_CONVERTED: Record<string, { why: string; error: string }> = {
  environments: {
    why:
      "the YAML converter v1.38.3 drops the config `grants` (`type: array`): the program it writes names an " +
      "undefined variable, and Pulumi's program generators refuse it",
    error: "undefined variable grants",
  },
};
