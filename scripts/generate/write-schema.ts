/**
 * `npm run schema`: writes the plugin's package schema (./schemaDocs: provider/plugin/schema.ts with the descriptions
 * of the TypeScript TSDoc) to provider/schema.json, formatted as Prettier formats it. Commit the file: the plugin
 * serves it (GetSchema), the SDK generators read it, and tests/unit/plugin/schema.test.ts fails when it differs from
 * what this script writes.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as prettier from "prettier";
import { buildSchema } from "./schema-docs";
import { errorText } from "../../provider/client";

export const SCHEMA_FILE = path.join(__dirname, "..", "..", "provider", "schema.json");

async function main(): Promise<void> {
  const options = (await prettier.resolveConfig(SCHEMA_FILE)) ?? {};
  const text = await prettier.format(JSON.stringify(buildSchema()), { ...options, parser: "json" });
  fs.writeFileSync(SCHEMA_FILE, text);
  console.log(`wrote ${path.relative(process.cwd(), SCHEMA_FILE)} (${text.length} bytes)`);
}

if (require.main === module)
  main().catch((e: unknown) => {
    console.error(errorText(e));
    process.exit(1);
  });
