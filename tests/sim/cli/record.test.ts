/**
 * The wire recorder through the `pims` CLI: `--record <file>` and PIMS_WIRE_RECORD each append one line per request,
 * with the route templated and no token, key value or id in it; the flag wins over the variable.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { WireRecord } from "../../../provider/client";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { useCliSuite } from "../../kit/sim/cli";

const cli = useCliSuite({ profile: "quirky" });
let dir: string;
beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "pims-cli-record-"))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const read = (file: string): WireRecord[] =>
  fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as WireRecord);

test("--record writes the requests' shapes, never the token, a key value or an id", async () => {
  const { p } = cli.seedApp();
  const key = cli.sim.addApiKey(p, { name: "ci" });
  const file = path.join(dir, "wire.jsonl");
  const r = await cli.pims(["--record", file, "api-keys", p, "--json", "--show-secrets"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(key.apiKey); // the CLI was asked to show it: the recording still must not
  const records = read(file);
  expect(records.map((x) => [x.method, x.route, x.status])).toEqual([
    ["GET", "/v2/projects/{project_id}/api-keys", 200],
  ]);
  expect(records[0].body).toEqual([expect.objectContaining({ apiKey: "string", principalId: "null" })]);
  expectNoPlaintextSecrets(
    fs.readFileSync(file, "utf8"),
    [cli.sim.token, key.apiKey, key.id, p],
    "the CLI's recording",
  );
});

test("PIMS_WIRE_RECORD turns it on too; --record wins over it", async () => {
  const { p } = cli.seedApp();
  const fromEnv = path.join(dir, "env.jsonl");
  const fromFlag = path.join(dir, "flag.jsonl");
  expect((await cli.pims(["invoices", p], { env: { PIMS_WIRE_RECORD: fromEnv } })).code).toBe(0);
  expect(read(fromEnv).map((x) => x.route)).toEqual(["/v2/projects/{project_id}/invoices"]);
  expect((await cli.pims(["--record", fromFlag, "invoices", p], { env: { PIMS_WIRE_RECORD: fromEnv } })).code).toBe(0);
  expect(read(fromEnv)).toHaveLength(1);
  expect(read(fromFlag)).toHaveLength(1);
});
