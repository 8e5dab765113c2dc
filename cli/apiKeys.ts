/** `pims api-keys <project>`: a project's API keys, values masked unless --json --show-secrets. */
import type { Command } from "commander";
import { getApiKeys } from "../sdk/nodejs/functions";
import { EXIT_OK, callOptions, io, printJson, type ListOptions, type Runner } from "./context";
import { UsageError, maskSecret, table } from "./format";

async function apiKeysCommand(project: string, o: ListOptions, cmd: Command): Promise<number> {
  if (o.showSecrets && !o.json)
    throw new UsageError("--show-secrets only applies with --json (the table always masks key values)");
  const { keys } = await getApiKeys({ projectId: project }, callOptions(cmd));
  // --json shows every key with the same members: principalId, absent or null when the key belongs to no service
  // account, is null there (never "" and never missing), as are the expiry numbers the service left unknown.
  const shown = keys.map(({ expiresAtDate: _date, ...k }) => ({
    ...k,
    principalId: k.principalId ?? null,
    apiKey: o.showSecrets ? k.apiKey : maskSecret(k.apiKey),
  }));
  if (o.json) {
    printJson({ keys: shown });
  } else if (shown.length === 0) {
    io.out(`No API keys in project ${project}.\n`);
  } else {
    io.out(
      table(
        ["NAME", "ID", "KEY", "STATUS", "SOURCE", "EXPIRES", "PRINCIPAL"],
        shown.map((k) => [k.name, k.id, k.apiKey, k.status, k.source, k.expiresAt, k.principalId ?? "-"]),
      ),
    );
  }
  return EXIT_OK;
}

export function addApiKeysCommand(program: Command, run: Runner): void {
  program
    .command("api-keys")
    .description("list a project's API keys (values masked)")
    .argument("<project>", "project id")
    .option("--json", "JSON instead of a table: {keys: [...]}")
    .option("--show-secrets", "with --json: include the full key values")
    .action((project: string, o: ListOptions, cmd: Command) => run(apiKeysCommand(project, o, cmd)));
}
