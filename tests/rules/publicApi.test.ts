/**
 * The public surface of the npm package cannot shrink or change unnoticed. API Extractor (api-extractor.json) reads
 * the built declarations (`bin/sdk/nodejs/index.d.ts`) and writes every exported name with its kind and signature;
 * the committed report is `sdk/nodejs/pulumi-pims.api.md`. A change that removes, renames or retypes an export fails
 * here until the report is updated on purpose with `npm run api-report` (CONTRIBUTING.md, "The public API").
 */
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";
import * as fs from "node:fs";
import * as path from "node:path";
import { buildIfStale } from "../kit/jest/buildOnce";

const ROOT = path.resolve(__dirname, "..", "..");

/** The report's declaration lines (`export …`), which name each public symbol and its kind. */
const exportLines = (report: string): string[] =>
  report
    .split("\n")
    .filter((l) => l.startsWith("export "))
    .map((l) => l.trim());

test("the package's public API equals the committed report (sdk/nodejs/pulumi-pims.api.md)", () => {
  buildIfStale();
  const config = ExtractorConfig.loadFileAndPrepare(path.join(ROOT, "api-extractor.json"));
  const result = Extractor.invoke(config, {
    localBuild: false,
    messageCallback: (m) => {
      m.handled = true; // the report is the output; API Extractor's own console lines are noise here
    },
  });
  const committed = fs.readFileSync(config.reportFilePath, "utf8");
  const current = fs.readFileSync(config.reportTempFilePath, "utf8");
  const removed = exportLines(committed).filter((l) => !exportLines(current).includes(l));
  const added = exportLines(current).filter((l) => !exportLines(committed).includes(l));
  if (result.apiReportChanged || removed.length > 0 || added.length > 0)
    throw new Error(
      [
        "The public API differs from sdk/nodejs/pulumi-pims.api.md. If that is intended, run `npm run api-report`",
        "and commit the report; a removal or a rename breaks users' programs (a major version).",
        `Removed or changed:\n  ${removed.join("\n  ") || "(no export line; a member or a signature)"}`,
        `Added:\n  ${added.join("\n  ") || "(none)"}`,
      ].join("\n"),
    );
  expect(result.succeeded).toBe(true);
  // The names users import are in it, so an empty or truncated report cannot pass.
  for (const name of ["Project", "ServiceAccount", "VolumeSize", "AppSecrets", "Provider", "getApiKeysOutput"])
    expect(committed).toMatch(new RegExp(`^export (class|function|interface|const) ${name}\\b`, "m"));
}, 180_000);
