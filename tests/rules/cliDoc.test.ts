/**
 * docs/cli.md cannot drift from the commands (issue 63: it said `pims tokens` measured on this machine's clock, its
 * `--help` too, while the code measures on the service's): the page holds the `--help` of `pims` and of each command
 * a user runs, in blocks that scripts/generate/docs-cli.ts writes (`npm run docs:cli`) from the compiled CLI as a user
 * runs it. This fails when a block differs from what the CLI prints (a flag, a default or a help text changed in cli/
 * without regenerating the page), when a command has no block, or a block names no command. bin/ is rebuilt first
 * when it is older than the sources (tests/kit/jest/buildOnce.ts), so the CLI compared is the one in the tree.
 */
import * as fs from "node:fs";
import { CLI_DOC, cliHelps, helpBegin, helpEnd, withCliHelp } from "../../scripts/generate/docs-cli";
import { buildIfStale } from "../kit/jest/buildOnce";

let helps: Map<string, string>;
beforeAll(async () => {
  buildIfStale();
  helps = await cliHelps();
}, 120_000);
const doc = (): string => fs.readFileSync(CLI_DOC, "utf8");

/** The text of `command`'s block in `page`, markers and fence left out. */
const blockOf = (page: string, command: string): string =>
  page.slice(page.indexOf(helpBegin(command)) + helpBegin(command).length, page.indexOf(helpEnd(command))).trim();

test("the commands are the program and each command without subcommands, each help its own", () => {
  const commands = [...helps.keys()];
  expect(commands[0]).toBe("pims");
  expect(commands).toEqual(
    expect.arrayContaining(["pims logs", "pims runs cancel", "pims service-accounts list", "pims esc-rotator serve"]),
  );
  expect(commands).not.toContain("pims service-accounts");
  for (const [command, help] of helps) expect(help.startsWith(`Usage: ${command} `)).toBe(true);
});

test("docs/cli.md holds each command's --help as the CLI prints it (after a change in cli/: npm run docs:cli)", () => {
  const page = doc();
  const stale = [...helps].filter(([c, help]) => blockOf(page, c) !== `\`\`\`text\n${help.trimEnd()}\n\`\`\``);
  expect(stale.map(([c]) => `${c}: run \`npm run docs:cli\``)).toEqual([]);
  expect(withCliHelp(page, helps)).toBe(page);
});

test("a changed help or a new flag is a difference; a command without its block, or a stray block, is refused", () => {
  const page = withCliHelp(doc(), helps); // the page as generated: this test is about the mechanism
  const tokens = blockOf(page, "pims tokens");
  expect(tokens).toContain("Times are measured on the service's clock");
  const edited = page.replace(tokens, tokens.replace("the service's clock", "this machine's clock"));
  expect(edited).not.toBe(page);
  expect(withCliHelp(edited, helps)).toBe(page);

  const serve = helps.get("pims esc-rotator serve") ?? "";
  const withFlag = new Map(helps).set(
    "pims esc-rotator serve",
    serve.replace("  -h, --help", "  --new-flag  …\n  -h, --help"),
  );
  expect(withCliHelp(page, withFlag)).not.toBe(page);

  expect(() => withCliHelp(page.replace(helpBegin("pims tokens"), ""), helps)).toThrow(/no block for `pims tokens`/);
  const fewer = new Map([...helps].filter(([c]) => c !== "pims tokens"));
  expect(() => withCliHelp(page, fewer)).toThrow(/block for `pims tokens`, which is not a command of pims/);
});
