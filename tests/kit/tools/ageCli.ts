/**
 * The independent age implementation the sim and engine tiers open sealed tokens with (`tokenDelivery.ageRecipients`):
 * `age` and `age-keygen` of filippo.io/age, built from the Go module proxy by scripts/toolchain/ensure-age and cached
 * under ~/.cache/pulumi-pims (a build of the pinned version on PATH is used as it is). A token sealed by the
 * `age-encryption` package and opened by this program proves the ciphertext is age's format, not only our reading of
 * it. The unit tier never calls it (it has no toolchain): it makes identities with `age-encryption` itself.
 */
import { execFile, execFileSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const SCRIPT = path.resolve(__dirname, "..", "..", "..", "scripts", "toolchain", "ensure-age");
let dir: string | undefined;

/**
 * The path of `age` or `age-keygen`: the first call runs scripts/toolchain/ensure-age (a build, once per machine, when
 * the cache is missing; its progress lines go to stderr) and throws with its words when there is no age.
 */
export function ageTool(name: "age" | "age-keygen"): string {
  if (dir === undefined) {
    try {
      const out = execFileSync("bash", [SCRIPT], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
      dir = out.trim().split("\n").pop() ?? "";
    } catch (e) {
      throw new Error(`scripts/toolchain/ensure-age failed: ${e instanceof Error ? e.message : String(e)}`, {
        cause: e,
      });
    }
  }
  return path.join(dir, name);
}

/** An age identity made by `age-keygen -o` in `dir`: its file and its public recipient (`age1…`). */
export function ageIdentity(dir: string): { identity: string; recipient: string } {
  const identity = path.join(dir, `age-${crypto.randomBytes(4).toString("hex")}.txt`);
  execFileSync(ageTool("age-keygen"), ["-o", identity], { stdio: "ignore" });
  const recipient = /^# public key: (age1\S+)$/m.exec(fs.readFileSync(identity, "utf8"))?.[1];
  if (!recipient) throw new Error(`age-keygen wrote no public key into ${identity}`);
  return { identity, recipient };
}

/** A fresh recipient whose identity nobody keeps (`age-keygen | age-keygen -y`). */
export function ageRecipientOnly(): string {
  const key = execFileSync(ageTool("age-keygen"), { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  return execFileSync(ageTool("age-keygen"), ["-y"], { input: key, encoding: "utf8" }).trim();
}

/** `age -d -i <identity>` of an ASCII-armored ciphertext, synchronously: the plaintext. */
export function ageDecryptSync(armored: string, identity: string): string {
  return execFileSync(ageTool("age"), ["-d", "-i", identity], { input: armored, encoding: "utf8" });
}

/** `age -d -i <identity>` of an ASCII-armored ciphertext: the plaintext. */
export async function ageDecrypt(armored: string, identity: string): Promise<string> {
  const file = `${identity}.${crypto.randomBytes(4).toString("hex")}.age`;
  fs.writeFileSync(file, armored);
  try {
    return (await run(ageTool("age"), ["-d", "-i", identity, file])).stdout;
  } finally {
    fs.rmSync(file, { force: true });
  }
}
