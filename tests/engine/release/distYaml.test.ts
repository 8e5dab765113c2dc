/**
 * Installs like every Pulumi provider, YAML: a YAML program naming the pims package's version (the resource option
 * `version`) runs under the official YAML host with nothing but the release directory (tests/kit/languages/dist.ts): an
 * empty plugin cache, no plugin on PATH, no `plugins.providers`, a `node` first on PATH that fails if anything calls
 * it. The `cli` row of the dist table (tests/kit/languages/distTable.ts): `pulumi install` downloads the plugin from
 * the loopback server into `$PULUMI_HOME/plugins`; then `pulumi up`, a rotation by replacement (`rotationTrigger`), one
 * with overlap (`keepPreviousToken`), `pulumi refresh`, a no-change `pulumi preview` and `pulumi destroy` (the steps of
 * tests/kit/languages/dist.ts every dist suite takes), one stack throughout, checked against the simulator; the state,
 * the backend's files and everything printed are scanned for tokens. Then, this suite's own: `pulumi plugin install
 * resource pims <version> --file <archive>` into another empty cache, and `pulumi install` of the program with the
 * option `pluginDownloadURL` and no override.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { archiveName, installedPlugins, VERSION } from "../../kit/languages/dist";
import { describeDist } from "../../kit/languages/distTable";
import { E2E_TIMEOUT_MS } from "../../kit/engine/engine";
import { run } from "../../kit/languages/index";
import { YAML_ROTATION_OUTPUTS, yamlRotationProgram } from "../../kit/languages/yaml";

jest.setTimeout(E2E_TIMEOUT_MS);

/** Two accounts, each naming the pims package's version by its resource option `version`. */
const program = (version: string): string =>
  yamlRotationProgram({ name: "pims-dist-yaml", prefix: "dist", options: [`version: ${version}`] });
const suite = describeDist({
  language: "yaml",
  sdk: "dist",
  program: "the program above, naming the package's version",
  name: "dist-yaml",
  creates: "both accounts",
  resources: 3,
  names: YAML_ROTATION_OUTPUTS,
  install: ({ dir, makeEnv }) => {
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), program(VERSION));
    return Promise.resolve({ env: makeEnv() });
  },
});

test("pulumi plugin install resource pims <version> --file <archive> installs it into an empty cache", async () => {
  const { dist, scratch, env, stack } = suite();
  const home = path.join(scratch, "home-file");
  fs.mkdirSync(home);
  const fileEnv = { ...env, PULUMI_HOME: home, PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: "" };
  await run("pulumi", ["plugin", "install", "resource", "pims", VERSION, "--file", dist.archive], { env: fileEnv });
  expect(installedPlugins(home)).toEqual([`resource-pims-v${VERSION}`]);
  const listed = await run("pulumi", ["plugin", "ls", "--json"], { env: fileEnv });
  expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ name: "pims", version: VERSION })]);
  expect(stack.node.calls()).toEqual([]);
});

test("with the option pluginDownloadURL (the release address) and no override, pulumi install downloads", async () => {
  const { scratch, env, stack } = suite();
  const { server } = stack;
  const other = path.join(scratch, "with-address");
  fs.mkdirSync(other);
  const withAddress = program(VERSION).replace(
    `      version: ${VERSION}\n`,
    `      version: ${VERSION}\n      pluginDownloadURL: ${server.url}\n`,
  );
  expect(withAddress).toContain(`pluginDownloadURL: ${server.url}`);
  fs.writeFileSync(path.join(other, "Pulumi.yaml"), withAddress);
  const home = path.join(scratch, "home-address");
  const addressEnv = { ...env, PULUMI_HOME: home, PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: "" };
  const before = server.requests.length;
  await run("pulumi", ["install"], { cwd: other, env: addressEnv });
  expect(server.requests.slice(before)).toEqual([{ path: `GET /${archiveName()}`, status: 200 }]);
  expect(installedPlugins(home)).toEqual([`resource-pims-v${VERSION}`]);
  expect(stack.node.calls()).toEqual([]);
});
