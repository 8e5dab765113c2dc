// Makes `require("pulumi-pims/...")` resolve to this checkout from anywhere inside it, as it does for a user who
// installed the package. The dynamic-provider shim stored in state require()s the installed package by name,
// so examples and tests in this repository need the name to resolve. Idempotent; does nothing when installed
// as a dependency of another project.
const fs = require("fs");
const path = require("path");
const root = path.resolve(__dirname, "..", "..");
const link = path.join(root, "node_modules", "pulumi-pims");
if (path.basename(path.dirname(root)) === "node_modules") process.exit(0);
try {
  if (fs.realpathSync(link) === root) process.exit(0);
  fs.rmSync(link, { recursive: true, force: true });
} catch {
  // absent: create it below
}
fs.mkdirSync(path.dirname(link), { recursive: true });
fs.symlinkSync("..", link, "dir");
