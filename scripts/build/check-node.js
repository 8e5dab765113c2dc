// Fails loudly when npm's scripts would not run on the Node of the `node` devDependency (Node 22: @pulumi/pulumi
// >= 3.249 needs it). That Node reaches node_modules/.bin/node only through the `node` package's preinstall script;
// npm skips a dependency's install scripts that package.json's `allowScripts` does not approve, and every npm script
// would then run on the machine's own Node (20 here) and fail far from the cause. Run first by `npm run build`
// (so by `npm ci`'s prepare) and by .ci/run.
const { execFileSync } = require("child_process");
const fs = require("fs");
const path = require("path");
const root = path.resolve(__dirname, "..", "..");
if (path.basename(path.dirname(root)) === "node_modules") process.exit(0); // installed as a dependency: not ours
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const wanted = Number(/\d+/.exec(pkg.devDependencies.node)[0]);
const bin = path.join(root, "node_modules", ".bin", "node");
let found = "no node_modules/.bin/node";
try {
  found = `Node ${execFileSync(bin, ["-p", "process.versions.node"], { encoding: "utf8" }).trim()}`;
} catch {
  // absent or not runnable: reported below
}
if (found !== `Node ${wanted}` && !found.startsWith(`Node ${wanted}.`)) {
  process.stderr.write(
    `pulumi-pims: node_modules/.bin/node must be Node ${wanted} (the \`node\` devDependency), found ${found}.\n` +
      "The `node` package's preinstall script did not run: npm runs a dependency's install scripts only when\n" +
      "package.json's `allowScripts` approves them. Approve it and run it again:\n" +
      "  npm install-scripts approve node && npm rebuild node\n",
  );
  process.exit(1);
}
