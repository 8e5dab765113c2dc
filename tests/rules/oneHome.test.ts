/**
 * Facts written once (issue 63): each has one home, and a rule here fails when the fact is written a second time
 * outside it (each rule shown to bite on a planted copy in a made-up file).
 * - The create body's limits (POST /v2/projects/{project_id}/service-accounts: name, description, grants,
 *   expiresIn) live in provider/serviceAccount/inputs.ts: the ESC adapter once restated them and refused a
 *   description the service allows.
 * - DELETE /v2/projects/{project_id}/service-accounts/{id} is sent by one function, provider/serviceAccount/delete.ts
 *   (a 404 counts only once the listing confirms the account is gone): the adapter once had its own, in which a bare
 *   404 counted as deleted.
 * - The token's fingerprint is computed in provider/client/token.ts and imported from the client, never re-exported
 *   by another module (the adapter once reached it through the token delivery, loading the sealing with it).
 * Code only: provider/, cli/, sdk/nodejs/ (the simulator is the service, with limits of its own; docs say them).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "..", "..");

interface Home {
  name: string;
  /** The one file (or folder) allowed to hold the fact. */
  home: string[];
  /** Lines that write the fact. */
  pattern: RegExp;
}

const HOMES: Home[] = [
  {
    name: "the create body's limits are declared only in provider/serviceAccount/inputs.ts",
    home: ["provider/serviceAccount/inputs.ts"],
    // A limit constant given a number, or the one-year maximum of expiresIn written out.
    pattern:
      /\b(?:const|let)\b[^=]*\b(?:NAME_MAX|DESCRIPTION_MAX|GRANTS_MAX|MAX_EXPIRES_IN|MAX_GRANTS)\b[^=]*=\s*\[?\s*\d|\b31_?536_?000\b/,
  },
  {
    name: "DELETE of a service account is sent only by provider/serviceAccount/delete.ts",
    home: ["provider/serviceAccount/delete.ts", "provider/client/", "cli/serviceAccounts.ts"],
    pattern: /\.deleteServiceAccount\(/,
  },
  {
    name: "the fingerprint is computed in provider/client/token.ts and re-exported by no other module",
    home: ["provider/client/"],
    // A function of that name defined again, or the client's one re-exported.
    pattern: /\bfunction fingerprint\b|\bconst fingerprint\s*=|export\s*\{[^}]*\bfingerprint\b[^}]*\}/,
  },
];

const inHome = (file: string, home: string[]): boolean =>
  home.some((h) => (h.endsWith("/") ? file.startsWith(h) : file === h));

/** `file:line` of each line of `text` (at `file`) that writes the fact outside its home. */
function copies(h: Home, file: string, text: string): string[] {
  if (inHome(file, h.home)) return [];
  return text
    .split("\n")
    .map((line, i): [string, number] => [line, i + 1])
    .filter(([line]) => h.pattern.test(line) && !/^\s*(\/\/|\/?\*)/.test(line))
    .map(([, n]) => `${file}:${n}`);
}

const code = execFileSync("git", ["ls-files", "provider", "cli", "sdk/nodejs"], { cwd: ROOT, encoding: "utf8" })
  .split("\n")
  .filter((f) => /\.ts$/.test(f));

describe.each(HOMES.map((h): [string, Home] => [h.name, h]))("%s", (_name, h) => {
  test("holds in every tracked file", () => {
    expect(code.length).toBeGreaterThan(50);
    expect(code.flatMap((f) => copies(h, f, fs.readFileSync(path.join(ROOT, f), "utf8")))).toEqual([]);
  });
});

test("each rule bites on a planted copy, and lets its home and comments through", () => {
  const [limits, del, fp] = HOMES;
  expect(copies(limits, "provider/escRotator/x.ts", "const DESCRIPTION_MAX = 300;")).toEqual([
    "provider/escRotator/x.ts:1",
  ]);
  expect(copies(limits, "cli/x.ts", "if (n > 31536000) throw e;")).toEqual(["cli/x.ts:1"]);
  expect(copies(limits, "provider/escRotator/x.ts", "export const NAME_MAX = SERVICE_NAME_MAX - 30;")).toEqual([]);
  expect(copies(limits, "provider/serviceAccount/inputs.ts", "const GRANTS_MAX = 50;")).toEqual([]);
  expect(copies(del, "provider/escRotator/x.ts", "\n  await ctx.client.deleteServiceAccount(p, id);")).toEqual([
    "provider/escRotator/x.ts:2",
  ]);
  expect(copies(del, "provider/escRotator/x.ts", " * then client.deleteServiceAccount(p, id) is sent")).toEqual([]);
  expect(copies(fp, "provider/serviceAccount/x.ts", "export { fingerprint };")).toEqual([
    "provider/serviceAccount/x.ts:1",
  ]);
  expect(copies(fp, "provider/x.ts", "export function fingerprint(t: string): string {")).toEqual(["provider/x.ts:1"]);
  expect(copies(fp, "provider/client/token.ts", "export function fingerprint(t: string): string {")).toEqual([]);
  expect(copies(limits, "provider/x.ts", "  /** Token lifetime in seconds, 0 to 31536000. */")).toEqual([]);
});
