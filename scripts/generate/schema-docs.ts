/**
 * The schema `npm run schema` writes (scripts/generate/write-schema.ts), with each description taken from the TSDoc of
 * the TypeScript it mirrors, read with the TypeScript compiler API: a property's from its member of the interface its
 * table names (provider/plugin/schemaProperties.ts, each kind's declaration), a resource's from the summary of its SDK
 * class (sdk/nodejs/<kind>.ts) and a function's from the summary of its SDK function (sdk/nodejs/functions/): one text
 * for the TypeScript reference and the registry's docs of every language. A summary is the TSDoc before its first
 * block tag; what only TypeScript users read goes under `@remarks`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { pimsSchema, type Describe } from "../../provider/plugin/schema";
import { packageVersion, releaseCoordinates } from "../../provider/identity";
import { withExamples } from "./schema-examples";

const ROOT = path.join(__dirname, "..", "..");

/** Where the documented interfaces live: the provider's sources and the TypeScript SDK's. */
const SOURCE_DIRS = ["provider", path.join("sdk", "nodejs")];

interface Declared {
  file: string;
  members: Map<string, string>;
  extendsNames: string[];
}

function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory()
        ? sourceFiles(path.join(dir, e.name))
        : e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")
          ? [path.join(dir, e.name)]
          : [],
    );
}

/** `{@link X}` reads `X` (the registry does not resolve TypeScript links); whitespace collapsed. */
const plain = (tsdoc: string): string =>
  tsdoc
    .replace(/\{@link\s+([^}\s]+)\s*\}/g, "$1")
    .replace(/\s+/g, " ")
    .trim();

/** A summary as the schema's Markdown: `{@link X}` reads `X`, the lines kept (lists and paragraphs), ends trimmed. */
const summaryText = (tsdoc: string): string =>
  tsdoc
    .replace(/\{@link\s+([^}\s]+)\s*\}/g, "$1")
    .replace(/[ \t]+\n/g, "\n")
    .trim();

/** The TSDoc summary (before the first block tag) of every exported class and function of the TypeScript SDK. */
export function documentedSummaries(): Map<string, Array<{ file: string; summary: string }>> {
  const found = new Map<string, Array<{ file: string; summary: string }>>();
  for (const file of sourceFiles(path.join("sdk", "nodejs"))) {
    const sf = ts.createSourceFile(file, fs.readFileSync(path.join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, true);
    sf.forEachChild((node) => {
      if (!(ts.isClassDeclaration(node) || ts.isFunctionDeclaration(node)) || node.name === undefined) return;
      const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
      const summary = summaryText(docs.map((d) => ts.getTextOfJSDocComment(d.comment) ?? "").join("\n\n"));
      found.set(node.name.text, [...(found.get(node.name.text) ?? []), { file, summary }]);
    });
  }
  return found;
}

/** Every interface of the sources: its members' TSDoc and the interfaces it extends. */
export function documentedInterfaces(): Map<string, Declared[]> {
  const found = new Map<string, Declared[]>();
  for (const file of SOURCE_DIRS.flatMap(sourceFiles)) {
    const sf = ts.createSourceFile(file, fs.readFileSync(path.join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, true);
    sf.forEachChild((node) => {
      if (!ts.isInterfaceDeclaration(node)) return;
      const members = new Map<string, string>();
      for (const m of node.members) {
        if (m.name === undefined) continue;
        const docs = ts.getJSDocCommentsAndTags(m).filter(ts.isJSDoc);
        members.set(m.name.getText(sf), plain(docs.map((d) => ts.getTextOfJSDocComment(d.comment) ?? "").join(" ")));
      }
      const extendsNames = (node.heritageClauses ?? []).flatMap((h) => h.types.map((t) => t.expression.getText(sf)));
      found.set(node.name.text, [...(found.get(node.name.text) ?? []), { file, members, extendsNames }]);
    });
  }
  return found;
}

/**
 * The describer `npm run schema` uses: a member's TSDoc, through the interfaces it extends; without a member, the
 * summary of the SDK's class or function of that name. A missing one throws.
 */
export function tsdocDescriber(interfaces = documentedInterfaces(), summaries = documentedSummaries()): Describe {
  const one = (name: string): Declared => {
    const all = interfaces.get(name) ?? [];
    if (all.length !== 1)
      throw new Error(`write-schema: interface ${name} is declared ${all.length} times in ${SOURCE_DIRS.join(", ")}`);
    return all[0];
  };
  const describe = (iface: string, member: string): string | undefined => {
    const i = one(iface);
    const own = i.members.get(member);
    if (own !== undefined) return own;
    for (const base of i.extendsNames) if (interfaces.has(base)) return describe(base, member) ?? undefined;
    return undefined;
  };
  const summary = (name: string): string => {
    const all = summaries.get(name) ?? [];
    if (all.length !== 1) throw new Error(`write-schema: ${name} is declared ${all.length} times in sdk/nodejs`);
    if (all[0].summary === "")
      throw new Error(`write-schema: ${name} has no TSDoc (${all[0].file}): describe it there`);
    return all[0].summary;
  };
  return (iface, member) => {
    if (member === undefined) return summary(iface);
    const doc = describe(iface, member);
    if (doc === undefined || doc === "")
      throw new Error(`write-schema: ${iface}.${member} has no TSDoc (${one(iface).file}): describe it there`);
    return doc;
  };
}

type Described = Record<string, { description: string }>;

/**
 * The schema `npm run schema` writes: each resource's and function's description with its example (schemaExamples),
 * at the release coordinates of package.json and the environment (PIMS_RELEASE_HOME for one run).
 */
export function buildSchema(): Record<string, unknown> {
  const schema = pimsSchema(tsdocDescriber(), packageVersion(), releaseCoordinates(process.env));
  for (const table of [schema.resources, schema.functions] as Described[])
    for (const [token, spec] of Object.entries(table))
      spec.description = withExamples(spec.description, token.slice(token.lastIndexOf(":") + 1));
  return schema;
}
