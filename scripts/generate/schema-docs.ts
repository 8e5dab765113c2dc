/**
 * The schema `npm run schema` writes (scripts/generate/write-schema.ts), with each property's description taken from
 * the TSDoc of the TypeScript member it mirrors (the interface each table of provider/plugin/schemaProperties.ts
 * names), read with the TypeScript compiler API: one text for the TypeScript reference and the registry's docs of every
 * language.
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

/** The describer `npm run schema` uses: a member's TSDoc, through the interfaces it extends; a missing one throws. */
export function tsdocDescriber(interfaces = documentedInterfaces()): Describe {
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
  return (iface, member) => {
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
