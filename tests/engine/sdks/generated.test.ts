/**
 * The SDKs in the repository are what the schema generates: `scripts/generate/gen-sdk/run` (the command behind
 * `npm run gen-sdk`, building the generator on first use) writes the three SDKs from provider/schema.json into a
 * temporary directory, and every file there must equal the repository's, with none missing or extra (sdk/java's
 * hand-written pom.xml and a local build's target/ aside). A schema change without `npm run gen-sdk` fails here
 * (provider/schema.json itself is checked against the code by the unit tier). Needs Go and the Go module proxy (the
 * generator's first build: about a minute; the Java language host's, about two; cached after).
 *
 * Set-up: its own, because no engine and no service: it runs the SDK generator and compares its files with the
 * repository's.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { NODE_BIN, REPO_ROOT, tempDir } from "../../../scripts/engine";
import { GO_SDK_DIR } from "../../kit/languages/go";
import { filesUnder, run } from "../../kit/languages/index";
import { JAVA_SDK_DIR } from "../../kit/languages/java";
import { PYTHON_SDK_DIR } from "../../kit/languages/python";

/** sdk/java's files that are not the generator's: the hand-written pom.xml, and what a local Maven build writes. */
const HAND_WRITTEN = (f: string): boolean => f === "pom.xml" || f.startsWith("target/");

/** The generator's first build compiles pkg/v3's codegen: minutes on a loaded 2-core machine. */
jest.setTimeout(20 * 60_000);

let out: string;

beforeAll(async () => {
  out = tempDir("pims-gen-sdk-");
  await run("bash", [path.join(REPO_ROOT, "scripts", "generate", "gen-sdk", "run"), "--out", out], {
    cwd: REPO_ROOT,
    env: { ...process.env, PATH: `${NODE_BIN}${path.delimiter}${process.env.PATH ?? ""}` },
  });
}, 20 * 60_000);

afterAll(() => {
  if (out) fs.rmSync(out, { recursive: true, force: true });
});

test.each([
  ["python", PYTHON_SDK_DIR],
  ["go", GO_SDK_DIR],
  ["java", JAVA_SDK_DIR],
])("sdk/%s is exactly what npm run gen-sdk generates", (lang, dir) => {
  const generated = path.join(out, lang);
  const want = filesUnder(generated);
  expect(want.length).toBeGreaterThan(10);
  expect(filesUnder(dir).filter((f) => !HAND_WRITTEN(f))).toEqual(want);
  const differing = want.filter(
    (f) => !fs.readFileSync(path.join(dir, f)).equals(fs.readFileSync(path.join(generated, f))),
  );
  expect(differing).toEqual([]);
});
