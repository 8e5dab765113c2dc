/**
 * The secret scan: fails a test, without printing the secret, when a secret value occurs in plaintext in a text (an
 * error, a log line, the engine's output) or in any file under a directory (backend checkpoints, stack config).
 */
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * The forms a secret's bytes take in a text: raw, base64 (padded or not), base64url, hex (either case), JSON-escaped.
 * A token that leaks encoded (a gRPC log of bytes, a JSON document, a hex dump) is still a leak.
 */
export function secretForms(s: string): string[] {
  const b = Buffer.from(s, "utf8");
  const base64 = b.toString("base64");
  const hex = b.toString("hex");
  return [
    ...new Set([
      s,
      base64,
      base64.replace(/=+$/, ""),
      b.toString("base64url"),
      hex,
      hex.toUpperCase(),
      JSON.stringify(s).slice(1, -1),
    ]),
  ];
}

/**
 * Every secret in `secrets` that occurs in `text` in any of its {@link secretForms} (empty = clean). Secrets shorter
 * than 8 characters are ignored (they would match by chance).
 */
export function findPlaintextSecrets(text: string, secrets: Iterable<string>): string[] {
  const hits: string[] = [];
  for (const s of secrets) if (s && s.length >= 8 && secretForms(s).some((f) => text.includes(f))) hits.push(s);
  return hits;
}

/** Fails the test, without printing the secret itself, when any secret occurs in `text`. */
export function expectNoPlaintextSecrets(text: string, secrets: Iterable<string>, where: string): void {
  const hits = findPlaintextSecrets(text, secrets);
  if (hits.length > 0) {
    throw new Error(
      `${hits.length} secret value(s) found in plaintext in ${where} (first begins ` +
        `${JSON.stringify(hits[0].slice(0, 6))}…)`,
    );
  }
}

/** Every regular file's text under `dir` (node_modules excluded). */
export function readAllFiles(dir: string): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.name === "node_modules") continue;
    if (entry.isDirectory()) out.push(...readAllFiles(p));
    else if (entry.isFile()) out.push({ file: p, text: fs.readFileSync(p, "utf8") });
  }
  return out;
}

/** Fails when any secret occurs in any file under `dir` (names the file, never the secret). */
export function expectNoSecretsInFiles(dir: string, secrets: readonly string[]): number {
  const files = readAllFiles(dir);
  for (const f of files) expectNoPlaintextSecrets(f.text, secrets, f.file);
  return files.length;
}

/**
 * The end of a suite's secret scans: no secret in what the engine printed, nor in any file under `dir` (the backend's
 * checkpoints, backups and history, the stack's config).
 */
export function expectNoSecretsInOutputOrFiles(
  engine: { text(): string },
  dir: string,
  secrets: readonly string[],
): void {
  expectNoPlaintextSecrets(engine.text(), secrets, "the engine's output");
  expect(expectNoSecretsInFiles(dir, secrets)).toBeGreaterThan(3);
}
