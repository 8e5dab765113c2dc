/**
 * Issue 63: a type token is spelled once, in its home, and every reader of a state recognises the kinds from there.
 * The homes: provider/identity.ts (`nativeToken`: the plugin's `pims:index:<Name>`, written by YAML, Python, Go and
 * Java programs) and provider/kinds.ts (`typeToken`: the dynamic provider's `pulumi-nodejs:dynamic/pims:<Kind>`,
 * written by TypeScript programs; `kindOfStoredType`: either, as a state or an export holds them). A reader that
 * spelled one of them again (`type.endsWith("pims:ServiceAccount")`) read only one host's states: `pims
 * service-accounts list --state` marked every account of a YAML stack `STACK no` and advised deleting them.
 *
 * Checked: every string, template and regular-expression literal in the code of provider/, cli/, scripts/,
 * sdk/nodejs/ and bench/ (read with TypeScript's own parser: comments are not code) outside the homes. A literal
 * without whitespace (a token, a prefix, a `$ref`, a pattern) that names a pims type token is a second spelling;
 * prose (a message or a doc string telling a user to run `pulumi import pims:index:Project …`) has spaces and is not
 * counted, nor are docs, the schema, the generated SDKs and the tests' programs, which hold tokens as text. And the one
 * recogniser reads every state fixture of both hosts (real exports: tests/fixtures/) as holding every kind.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { kindOfStoredType, RESOURCE_KINDS } from "../../provider/kinds";
import { listFixtures } from "../fixtures/fixtures";

const ROOT = path.resolve(__dirname, "..", "..");
/** Where code recognises or builds type tokens. */
const CODE = ["provider", "cli", "scripts", "sdk/nodejs", "bench"];
/** The homes of the type tokens. */
const HOMES = ["provider/identity.ts", "provider/kinds.ts"];

/** What a pims type token looks like, or a part of one that can only be one. */
const TOKEN_PARTS = [
  /\bpims:index\b/, // the plugin's tokens: pims:index:ServiceAccount, pims:index:getApiKeys, #/types/pims:index:…
  /:index:/, // the same from the package's name: `${PACKAGE}:index:${name}`
  /dynamic\/pims\b/, // the dynamic provider's: pulumi-nodejs:dynamic/pims:ServiceAccount
  /\bpims:[A-Z]\w*/, // the short form (pims:ServiceAccount); stack config keys (pims:token) start in lower case
  /\bproviders:pims\b/, // the provider's own: pulumi:providers:pims
  new RegExp(`:(?:${RESOURCE_KINDS.join("|")})\\b`), // a token's tail: endsWith(":ServiceAccount")
];

/** The text of each string, template (each `${…}` as `${}`) and regular-expression literal of `source`'s code. */
function literals(source: string, file = "x.ts"): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) found.push(node.text);
    else if (ts.isRegularExpressionLiteral(node)) found.push(node.text.replace(/\\\//g, "/"));
    else if (ts.isTemplateExpression(node))
      found.push([node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join("${}"));
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** The literals of `source` that spell a type token: no whitespace (not prose), and a token or a part of one. */
const spelled = (source: string): string[] =>
  literals(source).filter((l) => !/\s/.test(l) && TOKEN_PARTS.some((p) => p.test(l)));

test("no code outside provider/identity.ts and provider/kinds.ts spells a type token", () => {
  const files = execFileSync("git", ["ls-files", ...CODE], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter((f) => /\.(c|m)?(t|j)s$/.test(f) && !HOMES.includes(f));
  expect(files.length).toBeGreaterThan(100);
  const found = files.flatMap((f) => spelled(fs.readFileSync(path.join(ROOT, f), "utf8")).map((l) => `${f}: ${l}`));
  expect(found).toEqual([]);
});

test("the homes spell them (the search looks where they are)", () => {
  for (const home of HOMES) expect(spelled(fs.readFileSync(path.join(ROOT, home), "utf8"))).not.toEqual([]);
});

test("the search bites: each way of spelling a token again is found; prose, comments and config keys are not", () => {
  const planted = [
    'if (r.type.endsWith("pims:ServiceAccount")) ids.add(r.id);',
    'const entry = { type: "pims:index:Project", name, id };',
    "const t = `pulumi-nodejs:dynamic/pims:${kind}`;",
    "const m = /^(?:pulumi-nodejs:dynamic\\/pims|pims:index):(\\w+)$/.exec(type);",
    'const ref = { $ref: "#/types/pims:index:TokenDelivery" };',
    'const isAccount = (type: string) => type.endsWith(":ServiceAccount");',
    'const isProvider = type === "pulumi:providers:pims";',
  ];
  for (const line of planted) expect([line, spelled(line).length]).toEqual([line, 1]);
  const allowed = [
    'throw new Error("run `pulumi import pims:index:Project <name> <projectId>` first");',
    "const hint = `pulumi do pims:ServiceAccount list --project-id ${p}`;",
    "// a type such as pims:index:ServiceAccount or pulumi-nodejs:dynamic/pims:ServiceAccount",
    "/** `pims:index:Project` */ const x = 1;",
    'const key = "pims:token"; const other = `pims:${name}`;',
    'super(providerShim("Project"), name, props, opts, "pims", "Project");',
  ];
  for (const line of allowed) expect([line, spelled(line)]).toEqual([line, []]);
});

test("the one recogniser reads every state fixture of both hosts as holding every kind", () => {
  const fixtures = [...listFixtures("dynamic"), ...listFixtures("plugin")];
  expect(new Set(fixtures.map((f) => f.manifest.host ?? "dynamic"))).toEqual(new Set(["dynamic", "plugin"]));
  for (const f of fixtures) {
    const types = ((f.state.deployment.resources ?? []) as Array<{ type: string }>).map((r) => r.type);
    const kinds = new Set(types.map(kindOfStoredType).filter((k) => k !== undefined));
    expect([path.basename(f.dir), [...kinds].sort()]).toEqual([path.basename(f.dir), [...RESOURCE_KINDS].sort()]);
    expect(f.manifest.types.map(kindOfStoredType).sort()).toEqual([...RESOURCE_KINDS].sort());
  }
  expect(kindOfStoredType("pulumi:providers:pims")).toBeUndefined();
  expect(kindOfStoredType("pulumi-nodejs:dynamic:Resource")).toBeUndefined();
  expect(kindOfStoredType("other:index:ServiceAccount")).toBeUndefined();
});
