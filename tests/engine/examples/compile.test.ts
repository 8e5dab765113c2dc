/**
 * Every example compiles in every language against the SDK users install, each from a copy of its project directory
 * as users copy it:
 * - TypeScript: `tsc --noEmit` with the example's own tsconfig.json, `pulumi-pims` resolving to this checkout;
 * - Python: the `pulumi_pims` wheel built from sdk/python and pip-installed (as tests/engine/sdks/python.test.ts does),
 *   then the example's `__main__.py` run under Pulumi's mocks (tests/engine/programs/python/mock_check.py): every
 * resource,
 *   argument and function goes through the installed SDK, and the resources it declares are the scenario's;
 * - Go: `go vet` with the generated SDK through a `replace` of the module path sdk/go/go.mod declares;
 * - Java: `mvn compile` with sdk/java installed into the suite's Maven repository (tests/kit/languages/java.ts);
 * - YAML has no compiler: every YAML example runs end to end (examples/scenarios, examples/quickstart).
 * The end-to-end runs are in examples/quickstart.test.ts and examples/scenarios.test.ts.
 *
 * Needs Python (scripts/toolchain/ensure-python), Go and Maven 3.9.9 (scripts/toolchain/ensure-maven), cached after the
 * first run.
 *
 * Set-up: its own, because no stack is run: each example is compiled in each language (tsc, pip, go vet, mvn) in a
 * scratch directory.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { copyExample, NODE_BIN, REPO_ROOT, tempDir } from "../../../scripts/engine";
import { ENGINE_SETUP_TIMEOUT_MS } from "../../kit/engine/engine";
import { replaceGoSdk } from "../../kit/languages/go";
import { run } from "../../kit/languages/index";
import { ensureMaven, installJavaSdk, JAVA_LOCAL_REPO } from "../../kit/languages/java";
import { installPythonSdk } from "../../kit/languages/python";
import { tearDown } from "../../kit/teardown";

jest.setTimeout(15 * 60_000);

const SCENARIOS = ["quickstart", "rotation", "environments", "multi-account", "functions", "sealed-token"] as const;
type Scenario = (typeof SCENARIOS)[number];

/**
 * Config that turns every optional part of a scenario on, the resources it then declares ([type, name]) and the
 * functions it calls.
 */
const FULL: Record<Scenario, { config: Record<string, string>; resources: string[]; calls?: string[] }> = {
  quickstart: {
    config: { appProjectId: "p-1a2b3c4d", rotationTrigger: "2" },
    resources: ["AppSecrets app-secrets", "Project project", "ServiceAccount deployer"],
  },
  rotation: {
    config: { projectId: "p-1a2b3c4d", rotationTrigger: "2" },
    resources: ["AppSecrets ci-token", "ServiceAccount ci"],
  },
  environments: {
    config: {
      projectId: "p-1a2b3c01",
      grants: '["p-1a2b3c01"]',
      tokenLifetimeDays: "7",
      rotateDaysBeforeExpiry: "2",
      volumeSizeGb: "50",
      databaseUrl: "postgres://example",
    },
    resources: ["AppSecrets app-secrets", "ServiceAccount deployer", "VolumeSize data"],
  },
  "multi-account": {
    config: {
      appName: "web",
      volumeSizeGb: "100",
      otherBaseUrl: "https://other.example",
      otherToken: "t",
      otherProjectId: "p-2",
    },
    resources: [
      "AppSecrets app-secrets",
      "AppSecrets other-app-secrets",
      "Project project",
      "ServiceAccount ci",
      "ServiceAccount deployer",
      "VolumeSize volume",
      "providers:pims other",
      "providers:pims scoped",
    ],
  },
  "sealed-token": {
    config: {
      projectId: "p-1a2b3c4d",
      ageRecipient: "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p",
      rotationTrigger: "2",
    },
    resources: ["ServiceAccount ci"],
  },
  functions: {
    config: { projectId: "p-1a2b3c4d", appName: "api", buildId: "build-42" },
    resources: [],
    calls: ["pims:index:getAppLogs", "pims:index:getBuildLogs"],
  },
};

let scratch: string;

beforeAll(() => {
  scratch = tempDir("pims-examples-compile-");
}, ENGINE_SETUP_TIMEOUT_MS);

afterAll(() => tearDown([], scratch));

test.each(SCENARIOS)("%s: TypeScript type-checks with its own tsconfig.json", async (scenario) => {
  const dir = copyExample(scenario, path.join(scratch, "typescript"));
  await run(path.join(NODE_BIN, "tsc"), ["--noEmit", "-p", path.join(dir, "tsconfig.json")], { cwd: dir });
});

describe("Python", () => {
  let python: string;
  beforeAll(async () => {
    python = (await installPythonSdk(path.join(scratch, "python-sdk"))).python;
  }, ENGINE_SETUP_TIMEOUT_MS);

  test.each(SCENARIOS)(
    "%s: __main__.py runs under mocks with the installed SDK, declaring the scenario's resources",
    async (scenario) => {
      const dir = copyExample(scenario, path.join(scratch, "python"), "python");
      const project = /^name:\s*(\S+)/m.exec(fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8"))?.[1] ?? "";
      const ran = await run(python, [
        path.join(__dirname, "..", "programs", "python", "mock_check.py"),
        project,
        "dev",
        JSON.stringify(FULL[scenario].config),
        path.join(dir, "__main__.py"),
      ]);
      const line = ran.stdout.split("\n").find((l) => l.startsWith("RESULT ")) ?? "";
      const result = JSON.parse(line.slice("RESULT ".length)) as {
        resources: Array<[string, string]>;
        calls: string[];
      };
      const declared = result.resources.map(([type, name]) => `${type.replace(/^pims:index:|^pulumi:/, "")} ${name}`);
      expect(declared.sort()).toEqual(FULL[scenario].resources);
      if (FULL[scenario].calls) expect([...new Set(result.calls)].sort()).toEqual(FULL[scenario].calls);
    },
  );
});

test.each(SCENARIOS)(
  "%s: Go vets with the generated SDK (replace directive of sdk/go/go.mod's module path)",
  async (scenario) => {
    const dir = copyExample(scenario, path.join(scratch, "go"), "go");
    const env = await replaceGoSdk(dir);
    await run("go", ["vet", "./..."], { cwd: dir, env });
  },
);

describe("Java", () => {
  let mvn: string;
  beforeAll(async () => {
    const mavenDir = ensureMaven();
    mvn = path.join(mavenDir, "mvn");
    await installJavaSdk(mavenDir);
  }, ENGINE_SETUP_TIMEOUT_MS);

  test.each(SCENARIOS)("%s: compiles with Maven and the installed SDK", async (scenario) => {
    const dir = copyExample(scenario, path.join(scratch, "java"), "java");
    await run(mvn, ["-q", "--no-transfer-progress", "compile"], {
      cwd: dir,
      env: { ...process.env, MAVEN_OPTS: `-Dmaven.repo.local=${JAVA_LOCAL_REPO}` },
    });
    expect(fs.existsSync(path.join(dir, "target", "classes"))).toBe(true);
  });
});

test("every scenario has a README and a project in every language, with one project name", () => {
  for (const scenario of SCENARIOS) {
    const root = path.join(REPO_ROOT, "examples", scenario);
    expect(fs.existsSync(path.join(root, "README.md"))).toBe(true);
    const names = ["typescript", "yaml", "python", "go", "java"].map(
      (l) => /^name:\s*(\S+)/m.exec(fs.readFileSync(path.join(root, l, "Pulumi.yaml"), "utf8"))?.[1],
    );
    expect(new Set(names)).toEqual(new Set([`pims-${scenario}`]));
  }
});
