/**
 * Sealing a token to age recipients (age-encryption.org/v1, X25519): the `age-encryption` package, the format's
 * TypeScript reference implementation by age's author. The state keeps only the ASCII-armored ciphertext, which the
 * stack's passphrase cannot open; anyone holding an identity opens it with any age implementation (`age -d -i key`).
 *
 * The package is an ES module only. It is loaded with `require()`, which Node (20.19+, 22.12+; this package needs
 * 22) accepts for an ES module without top-level await, and which the plugin's bundler (esbuild, scripts/release/
 * bundle.ts) follows and turns into CommonJS like any other package; jest transforms it (jest.config.ts). It is loaded
 * on first use, so accounts that do not seal never load it.
 */
import type * as Age from "age-encryption";

let loaded: typeof Age | undefined;
function age(): typeof Age {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loaded ??= require("age-encryption") as typeof Age;
  return loaded;
}

/** An age X25519 recipient as `age-keygen` prints it: `age1` and 58 bech32 characters (32 bytes and a checksum). */
const X25519_RECIPIENT = /^age1[02-9ac-hj-np-z]{58}$/;

/** Why `r` is not an age X25519 recipient (a reason to append to its name), or undefined when it is one. */
export function recipientProblem(r: unknown): string | undefined {
  const hint = "must be an age X25519 recipient: `age1` and 58 characters, as `age-keygen -y <identity>` prints it";
  if (typeof r !== "string") return `${hint} (got a ${r === null ? "null" : typeof r})`;
  const shown = JSON.stringify(r.length > 24 ? `${r.slice(0, 24)}…` : r);
  if (r.startsWith("AGE-SECRET-KEY-"))
    return (
      "is an age identity (a private key), not a recipient: give its public recipient (`age-keygen -y`) and keep " +
      "the identity secret"
    );
  if (!X25519_RECIPIENT.test(r)) return `${hint} (got ${shown})`;
  try {
    new (age().Encrypter)().addRecipient(r); // the checksum and the key's length
  } catch {
    return `${hint} (got ${shown}: its checksum or length is wrong)`;
  }
  return undefined;
}

/** The token encrypted to every recipient, ASCII-armored (`-----BEGIN AGE ENCRYPTED FILE-----`). */
export async function sealToken(token: string, recipients: readonly string[]): Promise<string> {
  const { Encrypter, armor } = age();
  const e = new Encrypter();
  for (const r of recipients) e.addRecipient(r);
  return armor.encode(await e.encrypt(token));
}
