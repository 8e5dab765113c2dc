/**
 * `pulumi convert` from YAML, as a user runs it: a YAML program that uses every resource and every function of the
 * plugin, converted by the official YAML converter (scripts/toolchain/ensure-language-yaml ... pulumi-converter-yaml)
 * and the pims plugin's schema into PCL, then written in TypeScript, Python and Go by Pulumi's own program generators
 * (pkg/v3 codegen, the ones the official language hosts run: scripts/generate/gen-sdk/run --program). The official
 * Node, Python and Go hosts are not available here; their generators are. Checked: each program imports the package
 * users install (`pulumi-pims`, `pulumi_pims`, the Go SDK's path) and asks for this version, and every class and
 * function it calls is one the SDK in this repository has (the TypeScript program is type-checked against sdk/nodejs).
 * Then every YAML example of examples/ the same way (below: what its committed programs must call).
 * Needs Go and the Go module proxy on first run (the converter and the generator: minutes; cached after).
 *
 * Set-up: its own, because no stack and no service: it builds the YAML converter and Pulumi's program generators and
 * reads what they write.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { copyExample, engineEnv, ensureEngine, NODE_BIN, REPO_ROOT, tempDir } from "../../../scripts/engine";
import { writeYamlProject } from "../../../scripts/engine/yaml";
import { FROM_YAML, YAML_NOT_CONVERTED } from "../../../scripts/generate/schema-examples";
import { goImportBasePath } from "../../../provider/plugin/schema";
import { packageVersion } from "../../../provider/plugin/tokens";
import { GO_SDK_DIR } from "../../kit/languages/go";
import { filesUnder, namePlugin, run } from "../../kit/languages/index";
import { PYTHON_SDK_DIR } from "../../kit/languages/python";

jest.setTimeout(20 * 60_000);

const VERSION = packageVersion();

/** Every resource (one through an explicit provider) and every function, as a YAML user writes them. */
const PROGRAM = `
config:
  partnerToken:
    type: string
    secret: true
resources:
  partner:
    type: pulumi:providers:pims
    properties:
      token: \${partnerToken}
      baseUrl: https://pims.example.com
  project:
    type: pims:index:Project
    properties:
      name: my-project
  deployer:
    type: pims:index:ServiceAccount
    properties:
      projectId: \${project.projectId}
      name: ci-deployer
      grants: ["\${project.projectId}"]
      expiresIn: 7776000
      rotateBeforeExpiry: 5184000
      keepPreviousToken: true
    options:
      provider: \${partner}
  data:
    type: pims:index:VolumeSize
    properties:
      projectId: \${project.projectId}
      volumeId: default-us-east-1
      sizeGb: 100
  webSecrets:
    type: pims:index:AppSecrets
    properties:
      projectId: \${project.projectId}
      appId: p-web
      secrets:
        PIMS_TOKEN: \${deployer.token}
variables:
  keys:
    fn::invoke:
      function: pims:index:getApiKeys
      arguments:
        projectId: \${project.projectId}
  invoices:
    fn::invoke:
      function: pims:index:getInvoices
      arguments:
        projectId: \${project.projectId}
  logs:
    fn::invoke:
      function: pims:index:getAppLogs
      arguments:
        projectId: \${project.projectId}
        appId: p-web
        limit: 10
  build:
    fn::invoke:
      function: pims:index:getBuildLogs
      arguments:
        projectId: \${project.projectId}
        appId: p-web
        buildId: b-1
  cancelled:
    fn::invoke:
      function: pims:index:cancelRun
      arguments:
        projectId: \${project.projectId}
        appId: p-web
        runId: r-1
outputs:
  keys: \${keys.keys}
  invoices: \${invoices.invoices}
  logs: \${logs.lines}
  status: \${build.status}
  message: \${cancelled.message}
`;

let root: string;
let out: string;
const read = (lang: string, file: string): string => fs.readFileSync(path.join(out, lang, file), "utf8");

/** `pulumi convert --from yaml --language pcl` of the YAML project in `yamlDir`, then PCL to each language in `out`. */
async function convert(yamlDir: string, engineDir: string, out: string): Promise<void> {
  const pcl = `${out}-pcl`;
  const env = { ...process.env, ...engineEnv(`${out}-backend`, engineDir) };
  await run(path.join(engineDir, "pulumi"), ["convert", "--from", "yaml", "--language", "pcl", "--out", pcl], {
    cwd: yamlDir,
    env,
  });
  await run("bash", [path.join(REPO_ROOT, "scripts", "generate", "gen-sdk", "run"), "--program", pcl, "--out", out], {
    cwd: REPO_ROOT,
    env: { ...process.env, PATH: `${NODE_BIN}${path.delimiter}${process.env.PATH ?? ""}` },
  });
}

let engineDir: string;

beforeAll(async () => {
  root = tempDir("pims-convert-");
  engineDir = ensureEngine();
  await run("bash", [
    path.join(REPO_ROOT, "scripts", "toolchain", "ensure-language-yaml"),
    engineDir,
    "pulumi-converter-yaml",
  ]);
  const yamlDir = writeYamlProject(path.join(root, "yaml"), { name: "every-pims", program: PROGRAM });
  out = path.join(root, "out");
  await convert(yamlDir, engineDir, out);
}, 20 * 60_000);

afterAll(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** Every example project, and where the converter writes each language's program and where the example keeps it. */
const SCENARIOS = ["quickstart", "rotation", "environments", "multi-account", "functions", "sealed-token"];
const CONVERTED_FILES: Record<string, [string, string]> = {
  typescript: ["nodejs/index.ts", "index.ts"],
  python: ["python/__main__.py", "__main__.py"],
  go: ["go/main.go", "main.go"],
};

const RESOURCES = ["Project", "ServiceAccount", "VolumeSize", "AppSecrets", "Provider"];
const FUNCTIONS = ["getApiKeys", "getInvoices", "getAppLogs", "getBuildLogs", "cancelRun"];
const snake = (s: string): string => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const upper = (s: string): string => s[0].toUpperCase() + s.slice(1);

/** The distinct `pims.<name>` members a generated program uses. */
const used = (text: string): string[] =>
  [...new Set([...text.matchAll(/(?<![\w/.-])pims\.(\w+)/g)].map((m) => m[1]))].sort();

describe("a YAML program converted to TypeScript", () => {
  test("imports pulumi-pims, asks for this version, and never names @pulumi/pims", () => {
    const program = read("nodejs", "index.ts");
    expect(program).toContain('import * as pims from "pulumi-pims";');
    const pkg = JSON.parse(read("nodejs", "package.json")) as { dependencies: Record<string, string> };
    expect(pkg.dependencies["pulumi-pims"]).toBe(VERSION);
    expect(`${program}${read("nodejs", "package.json")}`).not.toContain("@pulumi/pims");
    expect(used(program)).toEqual([...RESOURCES, ...FUNCTIONS.map((f) => `${f}Output`)].sort());
  });

  test("type-checks against sdk/nodejs: the classes, argument names and getXOutput functions it exports", () => {
    const dir = path.join(out, "nodejs");
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(dir, "node_modules"));
    const file = path.join(dir, "index.ts");
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      esModuleInterop: true,
      skipLibCheck: true,
      types: ["node"],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(problems).toEqual([]);
    // pulumi-pims resolves to this repository's SDK (node_modules/pulumi-pims links here; npm ci builds bin/).
    const resolved = ts.resolveModuleName("pulumi-pims", file, program.getCompilerOptions(), ts.sys);
    expect(fs.realpathSync(resolved.resolvedModule?.resolvedFileName ?? "")).toBe(
      path.join(REPO_ROOT, "bin", "sdk", "nodejs", "index.d.ts"),
    );
  });
});

describe("a YAML program converted to Python", () => {
  test("imports pulumi_pims, requires this version, and calls only what sdk/python defines", () => {
    const program = read("python", "__main__.py");
    expect(program).toContain("import pulumi_pims as pims");
    expect(read("python", "requirements.txt").split("\n")).toContain(`pulumi_pims==${VERSION}`);
    const defined = filesUnder(path.join(PYTHON_SDK_DIR, "pulumi_pims"))
      .filter((f) => f.endsWith(".py"))
      .map((f) => fs.readFileSync(path.join(PYTHON_SDK_DIR, "pulumi_pims", f), "utf8"))
      .join("\n");
    const names = used(program);
    expect(names).toEqual([...RESOURCES, ...FUNCTIONS.map((f) => `${snake(f)}_output`)].sort());
    for (const name of names)
      expect({ name, defined: new RegExp(`^(def|class) ${name}\\b`, "m").test(defined) }).toEqual({
        name,
        defined: true,
      });
  });
});

describe("a YAML program converted to Go", () => {
  test("imports the Go SDK's package and calls only what sdk/go defines", () => {
    const program = read("go", "main.go");
    expect(program).toContain(`"${goImportBasePath()}"`);
    const defined = filesUnder(path.join(GO_SDK_DIR, "pims"))
      .filter((f) => f.endsWith(".go"))
      .map((f) => fs.readFileSync(path.join(GO_SDK_DIR, "pims", f), "utf8"))
      .join("\n");
    const names = used(program).filter((n) => /^New|Output$/.test(n)); // the calls; their types are checked below
    expect(names).toEqual([...RESOURCES.map((r) => `New${r}`), ...FUNCTIONS.map((f) => `${upper(f)}Output`)].sort());
    for (const name of used(program))
      expect({ name, defined: new RegExp(`^(func|type) ${name}\\b`, "m").test(defined) }).toEqual({
        name,
        defined: true,
      });
  });
});

/**
 * Each YAML example of examples/ converts (scripts/generate/schema-examples.ts FROM_YAML: the languages made from it by
 * `pulumi convert`), and its committed program in each of those languages calls every class and function the converted
 * one calls (plain or Output form: the converter picks the plain one when the arguments are plain), the optional parts
 * YAML cannot express aside: the same example, finished by hand. The examples YAML_NOT_CONVERTED names still fail to
 * convert, as it says. (Java is written by hand: FROM_YAML says why.)
 */
describe.each(SCENARIOS)("examples/%s/yaml converted", (scenario) => {
  const converted = (Object.keys(FROM_YAML) as Array<keyof typeof FROM_YAML>).filter((l) => FROM_YAML[l].converted);
  const dir = (): string => path.join(root, "examples", `${scenario}-out`);
  let conversion: Promise<void>;
  beforeAll(() => {
    const yamlDir = copyExample(scenario, path.join(root, "examples"), "yaml");
    namePlugin(yamlDir);
    conversion = convert(yamlDir, engineDir, dir());
    conversion.catch(() => undefined); // asserted below
  });

  const failure = YAML_NOT_CONVERTED[scenario];
  if (failure !== undefined) {
    test(`fails, as YAML_NOT_CONVERTED says: ${failure.error}`, async () => {
      await expect(conversion).rejects.toThrow(failure.error);
    });
    return;
  }

  test.each(converted)("the committed %s program calls what the converted one calls", async (language) => {
    await conversion;
    const [generated, committed] = CONVERTED_FILES[language];
    const text = (file: string): string => fs.readFileSync(file, "utf8");
    // Calls (Go: constructors and functions, not the types they take); a function's plain and Output forms as one.
    const calls = (t: string): Set<string> =>
      new Set(
        used(t.replace(/pims\s+\./g, "pims.")) // a chained call may break the line before its dot
          .filter((n) => language !== "go" || /^(New|Get)/.test(n))
          .filter((n) => !/(Args|Result)$/.test(n))
          .map((n) => n.replace(/_?[Oo]utput$/, "")),
      );
    const mine = calls(text(path.join(REPO_ROOT, "examples", scenario, language, committed)));
    const theirs = [...calls(text(path.join(dir(), generated)))];
    expect(theirs.length).toBeGreaterThan(0);
    expect(theirs.filter((n) => !mine.has(n))).toEqual([]);
  });
});
