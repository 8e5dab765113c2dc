/**
 * The README's two commands are all the set-up (issue 53): every program the tests, the scripts and the benchmark run
 * is either named in the README's "What a machine must have" list or provided by a `scripts/toolchain/ensure-*`
 * script (its `# Provides:` line), which builds or fetches it on first use. A program that is neither (Debian's `age`,
 * which `.ci/run` used to install behind the README's back) fails here before it fails a newcomer.
 *
 * What is read: the programs started by name in TypeScript and JavaScript (`execFile`, `execFileSync`, `spawn`,
 * `spawnSync`, `exec`, `execSync` with a literal first argument: its first word, a path's last segment) under tests/,
 * scripts/ and bench/, and every `command -v <program>` of the shell scripts under scripts/ and .ci/. Programs started
 * through a variable (a path an ensure script printed, the Node of node_modules/.bin) are not names and are not read.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "..", "..");
const TOOLCHAIN = path.join(ROOT, "scripts", "toolchain");

function walk(dir: string, keep: (file: string) => boolean): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" || e.name.startsWith(".") ? [] : walk(p, keep);
    return keep(p) ? [p] : [];
  });
}

/** The backticked words of the README's "What a machine must have" list. */
function named(): Set<string> {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const section = /^### What a machine must have\n([\s\S]*?)(?=^#{2,3} )/m.exec(readme)?.[1];
  if (!section) throw new Error('README.md has no "### What a machine must have" section');
  const list = section.split("\n").filter((l) => /^\s*- |^ {2}\S/.test(l));
  return new Set(list.flatMap((l) => [...l.matchAll(/`([^`\s]+)`/g)].map((m) => m[1])));
}

/** Each ensure-* script and the programs its `# Provides:` line names. */
function provided(): Map<string, string[]> {
  const scripts = fs.readdirSync(TOOLCHAIN).filter((f) => f.startsWith("ensure-"));
  return new Map(
    scripts.map((f) => {
      const line = /^# Provides: (.+)$/m.exec(fs.readFileSync(path.join(TOOLCHAIN, f), "utf8"))?.[1] ?? "";
      return [f, line.split(/\s+/).filter(Boolean)];
    }),
  );
}

/** Every program started by name (`code`: only those the TypeScript and JavaScript start), with the files. */
function started(only?: "code"): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  const add = (name: string, file: string): void => {
    const program = path.basename(name);
    if (!found.has(program)) found.set(program, new Set());
    found.get(program)?.add(path.relative(ROOT, file));
  };
  const code = ["tests", "scripts", "bench"].flatMap((d) =>
    walk(path.join(ROOT, d), (f) => /\.(ts|js|cjs|mjs)$/.test(f) && !f.includes(`${path.sep}fixtures${path.sep}`)),
  );
  const call = /\b(?:execFileSync|execFile|spawnSync|spawn|execSync|exec)\(\s*(["'`])([^"'`\s$]+)/g;
  for (const f of code) for (const m of fs.readFileSync(f, "utf8").matchAll(call)) add(m[2], f);
  if (only === "code") return found;
  const isShell = (f: string): boolean => {
    const text = fs.readFileSync(f, "utf8");
    return text.startsWith("#!/usr/bin/env bash") || text.startsWith("#!/bin/sh") || text.startsWith("#!/bin/bash");
  };
  const shells = [...walk(path.join(ROOT, "scripts"), isShell), ...walk(path.join(ROOT, ".ci"), isShell)];
  for (const f of shells) for (const m of fs.readFileSync(f, "utf8").matchAll(/command -v ([\w.-]+)/g)) add(m[1], f);
  return found;
}

test("every ensure-* script says what it provides", () => {
  const empty = [...provided()].filter(([, programs]) => programs.length === 0).map(([f]) => f);
  expect(empty).toEqual([]);
});

test("the README's list names each program the tests, scripts and benchmark run that no ensure-* provides", () => {
  const ok = new Set([...named(), ...[...provided().values()].flat()]);
  const missing = [...started()]
    .filter(([program]) => !ok.has(program))
    .map(([program, files]) => `${program} (started by ${[...files].sort().join(", ")})`);
  expect(missing).toEqual([]);
});

test("every package .ci/run installs is named in the README's list: a new user runs the README, not .ci/run", () => {
  const ci = fs.readFileSync(path.join(ROOT, ".ci", "run"), "utf8");
  const installs = [...ci.matchAll(/apt-get install ([^)|&;\n]+)/g)];
  const packages = installs.flatMap((m) => m[1].split(/\s+/).filter((w) => w !== "" && !w.startsWith("-")));
  expect(installs.length).toBeGreaterThan(0); // the pattern still reads .ci/run's install line
  expect(packages.filter((p) => !named().has(p))).toEqual([]);
});

test("a program an ensure-* script provides is started by the path it prints, never by its bare name", () => {
  // A bare name runs whatever PATH holds (another version, or nothing on a new machine): `age` was so until issue 53.
  const ensured = new Set([...provided().values()].flat());
  const bare = [...started("code")]
    .filter(([program]) => ensured.has(program))
    .map(([program, files]) => `${program} (started by name in ${[...files].sort().join(", ")})`);
  expect(bare).toEqual([]);
});

test("the rule reads what it claims to: the programs it finds include the toolchain's and the README's", () => {
  const found = started();
  // If the patterns stopped matching, the rule above would pass on nothing.
  for (const program of ["git", "go", "bash", "age", "flock", "gpg"]) expect(found.has(program)).toBe(true);
  expect(named().has("node")).toBe(true);
  expect(provided().get("ensure-age")).toEqual(["age", "age-keygen"]);
});
