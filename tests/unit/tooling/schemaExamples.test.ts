/**
 * The schema's examples (scripts/generate/schema-examples.ts): which example project each resource and function
 * carries, in which languages, and that the generated SDKs' doc comments show them (`npm run schema && npm run
 * gen-sdk`). Whether the examples compile and run is the engine tier's (tests/engine/examples/compile,
 * examples/quickstart, examples/scenarios); whether provider/schema.json holds what they are now is
 * tests/unit/plugin/schema.test.ts's.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import {
  exampleBlocks,
  FROM_YAML,
  SCHEMA_EXAMPLES,
  YAML_NOT_CONVERTED,
} from "../../../scripts/generate/schema-examples";

const ROOT = path.join(__dirname, "..", "..", "..");
const ALL = ["typescript", "python", "go", "java", "yaml"];

test("every resource's example is in all five languages; and every function's in all five", () => {
  const languages = Object.fromEntries(
    Object.keys(SCHEMA_EXAMPLES).map((name) => [name, exampleBlocks(name).map((b) => b.fence)]),
  );
  expect(languages).toEqual({
    Project: ALL,
    ServiceAccount: ALL,
    AppSecrets: ALL,
    VolumeSize: ALL,
    // YAML cannot map over a list: it exports the keys (environments) and invoices (multi-account) whole.
    getApiKeys: ALL,
    getInvoices: ALL,
    getAppLogs: ALL,
    getBuildLogs: ALL,
  });
});

test("cancelRun carries no example, and its description says why", () => {
  expect(exampleBlocks("cancelRun")).toEqual([]);
  const schema = JSON.parse(fs.readFileSync(path.join(ROOT, "provider", "schema.json"), "utf8")) as {
    functions: Record<string, { description: string }>;
  };
  expect(schema.functions["pims:index:cancelRun"].description).toMatch(/No program example: runs are cancelled/);
});

// Whether the converted ones still convert is tests/engine/convert.test.ts's.
test("each language other than YAML says whether it is converted from the YAML example; Java is hand-written", () => {
  expect(Object.keys(FROM_YAML).sort()).toEqual(ALL.filter((l) => l !== "yaml").sort());
  expect(
    Object.entries(FROM_YAML)
      .filter(([, f]) => !f.converted)
      .map(([l]) => l),
  ).toEqual(["java"]);
  for (const scenario of Object.keys(YAML_NOT_CONVERTED))
    expect(fs.existsSync(path.join(ROOT, "examples", scenario, "yaml", "Pulumi.yaml"))).toBe(true);
});

test("each example block is the program without its header comment", () => {
  for (const name of Object.keys(SCHEMA_EXAMPLES)) {
    for (const b of exampleBlocks(name)) {
      const first = b.code.split("\n")[0];
      expect({ name, fence: b.fence, first }).toEqual({
        name,
        fence: b.fence,
        first: expect.stringMatching(/^(import |from |package |name: )/),
      });
    }
  }
});

/** Where each generator writes a resource's or function's doc comment. */
function sdkFile(fence: string, name: string): string {
  const fn = /^get/.test(name);
  if (fence === "python")
    return path.join(
      "sdk/python/pulumi_pims",
      `${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace(/^_/, "")}.py`,
    );
  if (fence === "go") return path.join("sdk/go/pims", `${name[0].toLowerCase()}${name.slice(1)}.go`);
  return path.join("sdk/java/src/main/java/pulumipims/pims", fn ? "PimsFunctions.java" : `${name}.java`);
}

/** Lines of a block any generator copies verbatim into a comment: plain code, long enough to be the example's. */
const plainLines = (code: string): string[] =>
  code
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.length >= 24 && /^[\w ."'=(),:-]+$/.test(l));

const generated = Object.keys(SCHEMA_EXAMPLES).flatMap((name) =>
  exampleBlocks(name)
    .filter((b) => ["python", "go", "java"].includes(b.fence))
    .map((b) => [name, b.fence, b.code] as const),
);

test.each(generated)("the generated SDK's doc comment of %s carries its %s example", (name, fence, code) => {
  const text = fs.readFileSync(path.join(ROOT, sdkFile(fence, name)), "utf8");
  const lines = plainLines(code);
  expect(lines.length).toBeGreaterThan(2);
  expect(lines.filter((l) => !text.includes(l))).toEqual([]);
});
