/**
 * scripts/live/compare-recording.ts: a recording of the simulator itself shows no difference, and one whose shapes were
 * changed on purpose (a token member, a status, a content type, a header, a nested member) is reported route by route,
 * naming exactly those changes — run as `npm run compare-recording -- <file>` runs it.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import type { WireRecord } from "../../../provider/client";
import { compareRecordings, simulatorReference } from "../../../scripts/live/compare-recording";
import { NODE_BIN, REPO_ROOT } from "../../../scripts/engine";

const SA = "/v2/projects/{project_id}/service-accounts";
const KEYS = "/v2/projects/{project_id}/api-keys";
const INVOICES = "/v2/projects/{project_id}/invoices";
const LOGS = "/v2/projects/{project_id}/apps/{app_id}/logs";

let reference: WireRecord[];
beforeAll(async () => {
  reference = await simulatorReference();
});

test("the simulator's own answers show no difference, and the reference covers every documented route", () => {
  expect(compareRecordings(reference, reference).size).toBe(0);
  expect(new Set(reference.map((r) => `${r.method} ${r.route}`)).size).toBe(10);
});

test("a recording with other shapes is reported: each changed member, status, content type, header, only", async () => {
  const like = (method: string, route: string, ok = true): WireRecord => {
    const r = reference.find((x) => x.method === method && x.route === route && x.status < 300 === ok);
    if (!r) throw new Error(`no reference record for ${method} ${route}`);
    return structuredClone(r);
  };
  const created = like("POST", SA);
  created.status = 201;
  created.body = {
    ...(created.body as Record<string, WireRecord["body"]>),
    token: { bearer: "string", id: "string", ttl: "integer" },
  };
  created.headers = [...created.headers, "x-ratelimit-remaining"];
  const teapot = { ...like("GET", KEYS, false), status: 418 };
  const html = { ...like("GET", INVOICES), contentType: "text/html" };
  const page = like("GET", LOGS);
  page.body = { hasMore: "boolean", logs: [{ logLine: "string", severity: "string" }], cursor: "string" };
  const unchanged = [like("GET", KEYS), like("DELETE", `${SA}/{service_account_id}`)];

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pims-compare-"));
  try {
    const file = path.join(dir, "recording.jsonl");
    fs.writeFileSync(
      file,
      [created, teapot, html, page, ...unchanged].map((r) => JSON.stringify(r)).join("\n") + "\nnot a record\n",
    );
    const { stdout, stderr } = await promisify(execFile)(
      path.join(NODE_BIN, "ts-node"),
      ["--transpile-only", "scripts/live/compare-recording.ts", file],
      {
        cwd: REPO_ROOT,
        encoding: "utf8",
      },
    );
    expect(stderr).toContain("1 line(s) are not records");
    const report = stdout.split("\n");
    const under = (route: string): string[] => {
      const i = report.indexOf(route);
      if (i < 0) return [];
      const end = report.findIndex((l, j) => j > i && !l.startsWith("  - "));
      return report.slice(i + 1, end < 0 ? undefined : end);
    };
    expect(under(`POST ${SA}`).sort()).toEqual(
      [
        "  - success: header x-ratelimit-remaining: the simulator never sends it",
        "  - success: token.bearer: string: the simulator never sends it",
        "  - success: token.ttl: integer: the simulator never sends it",
      ].sort(),
    );
    expect(under(`GET ${KEYS}`)).toEqual(["  - status 418: the simulator never answers it here"]);
    expect(under(`GET ${INVOICES}`)).toEqual(["  - success: content type text/html: the simulator never sends it"]);
    expect(under(`GET ${LOGS}`).sort()).toEqual(
      [
        "  - success: cursor: string: the simulator never sends it",
        "  - success: logs[].severity: string: the simulator never sends it",
      ].sort(),
    );
    expect(stdout).not.toContain(`DELETE ${SA}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
