/**
 * rhysd/actionlint v1.7.12, the real Go program, built with the ordinary `go install` from the Go module proxy by
 * scripts/toolchain/ensure-actionlint and cached under ~/.cache/pulumi-pims (the unit tier has no network of its own:
 * the build runs in the suites' setup, `beforeAll(ensureActionlint, …)`, only when the cache is missing). Shared by the
 * unit tests of the workflows: tests/rules/rotationWorkflow.test.ts (the one users copy) and
 * tests/rules/workflows.test.ts (this repository's CI and release).
 */
import { execFile } from "node:child_process";
import * as path from "node:path";

export interface Finding {
  message: string;
  line: number;
  column: number;
  kind: string;
}

/** How long the first build may take on a busy 2-core machine (a cached build answers at once). */
export const ACTIONLINT_BUILD_TIMEOUT_MS = 10 * 60_000;

let binary: Promise<string> | undefined;

/** The path of actionlint v1.7.12: the cached build of scripts/toolchain/ensure-actionlint, built first if missing. */
export function ensureActionlint(): Promise<string> {
  binary ??= new Promise((resolve, reject) => {
    const script = path.resolve(__dirname, "..", "..", "..", "scripts", "toolchain", "ensure-actionlint");
    execFile("bash", [script], { maxBuffer: 1 << 20 }, (error, stdout, stderr) =>
      error
        ? reject(new Error(`scripts/toolchain/ensure-actionlint failed: ${error.message}\n${stderr.slice(-4000)}`))
        : resolve(stdout.trim().split("\n").pop() ?? ""),
    );
  });
  return binary;
}

/**
 * actionlint's findings for the workflow text `text`, reported as if it were the file `file` (read from stdin).
 * shellcheck and pyflakes are turned off: actionlint runs them when they are on PATH, so the verdict would depend on
 * the machine. actionlint exits 1 when it has findings, and 0 without; anything else is a failure of the tool.
 */
export async function lint(text: string, file: string): Promise<Finding[]> {
  const actionlint = await ensureActionlint();
  const args = ["-shellcheck=", "-pyflakes=", "-format", "{{json .}}", "-stdin-filename", file, "-"];
  return new Promise((resolve, reject) => {
    const child = execFile(actionlint, args, { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      const code = error ? (error as { code?: number }).code : 0;
      if (code !== 0 && code !== 1) return reject(new Error(`actionlint failed (${String(code)}): ${stderr}`));
      resolve(JSON.parse(stdout) as Finding[]);
    });
    child.stdin?.end(text);
  });
}
