/**
 * Signing with the release key through the `gpg` command: armored detached signatures (`<file>.asc`), as the Terraform
 * Registry asks of a provider's checksums file and Maven Central of every artifact. The key is the one
 * `PIMS_GPG_KEY_ID` names in gpg's usual keyring (`GNUPGHOME`), unlocked by `PIMS_GPG_PASSPHRASE` when it has one.
 * A signature is checked, not compared: two signatures of the same file differ in their time, so a re-run accepts a
 * published signature that is valid and made by the release key.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** The release key: its id as given and its fingerprint (upper-case hex). */
export interface SigningKey {
  id: string;
  fingerprint: string;
  passphrase: string | undefined;
  /** The environment gpg runs in (its GNUPGHOME). */
  env: NodeJS.ProcessEnv;
}

function gpg(env: NodeJS.ProcessEnv, args: string[], input?: string): string {
  return execFileSync("gpg", ["--batch", "--no-tty", ...args], {
    encoding: "utf8",
    env,
    input,
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/**
 * The key `PIMS_GPG_KEY_ID` names, or undefined when it is not set. Throws when gpg has no secret key of that id,
 * naming the variable.
 */
export function signingKey(env: NodeJS.ProcessEnv): SigningKey | undefined {
  const id = env.PIMS_GPG_KEY_ID?.trim();
  if (!id) return undefined;
  let listing: string;
  try {
    listing = gpg(env, ["--with-colons", "--list-secret-keys", id]);
  } catch {
    throw new Error(
      `PIMS_GPG_KEY_ID is "${id}", but gpg has no secret key of that id in its keyring ` +
        `(${env.GNUPGHOME ?? path.join(os.homedir(), ".gnupg")}): import the release key first (gpg --import)`,
    );
  }
  const fpr = /^fpr:(?:[^:]*:){8}([0-9A-F]+):/m.exec(listing)?.[1];
  if (fpr === undefined) throw new Error(`gpg lists no fingerprint for the key PIMS_GPG_KEY_ID names (${id})`);
  return { id, fingerprint: fpr, passphrase: env.PIMS_GPG_PASSPHRASE || undefined, env };
}

/** An armored detached signature of `file` by `key` (the text of `<file>.asc`). */
export function sign(file: string, key: SigningKey): string {
  const pass = key.passphrase === undefined ? [] : ["--pinentry-mode", "loopback", "--passphrase-fd", "0"];
  return gpg(
    key.env,
    ["--local-user", key.fingerprint, ...pass, "--armor", "--detach-sign", "--output", "-", file],
    key.passphrase,
  );
}

/**
 * Whether `signature` (armored text) is a valid signature of `file` made by `key` (its primary key or a subkey of
 * it). gpg's status lines say: `VALIDSIG <signing key> … <primary key fingerprint>`.
 */
export function verifies(signature: string, file: string, key: SigningKey): boolean {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pims-sig-"));
  try {
    const sig = path.join(dir, "file.asc");
    fs.writeFileSync(sig, signature);
    let status: string;
    try {
      status = gpg(key.env, ["--status-fd", "1", "--verify", sig, file]);
    } catch (e) {
      status = String((e as { stdout?: string }).stdout ?? "");
    }
    return status.split("\n").some((l) => l.startsWith("[GNUPG:] VALIDSIG ") && l.trim().endsWith(key.fingerprint));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The signature `<file>.asc` beside `file`: the one already there when it verifies, else a new one written there.
 * Returns its path.
 */
export function signatureOf(file: string, key: SigningKey): string {
  const asc = `${file}.asc`;
  if (fs.existsSync(asc) && verifies(fs.readFileSync(asc, "utf8"), file, key)) return asc;
  fs.writeFileSync(asc, sign(file, key));
  return asc;
}
