/**
 * Token delivery without the service (issue 47): the rules of `tokenDelivery` (check), the descriptions and the
 * fingerprint, sealing opened by `age-encryption`'s own decrypter (the unit tier has no toolchain: the independent
 * `age` CLI opens sealed tokens in the sim and engine tiers, tests/kit/tools/ageCli.ts), the command
 * sink (stdin, environment, redacted output, exit status, time limit) and the file sink (atomic, mode 0600).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as age from "age-encryption";
import { UNKNOWN } from "../../../provider/checks";
import { useLogSink } from "../../../provider/client/log";
import { ServiceAccountProvider } from "../../../provider/serviceAccount";
import { fingerprint } from "../../../provider/client/token";
import { deliveredTo, deliverToken } from "../../../provider/serviceAccount/delivery";
import { sealToken } from "../../../provider/serviceAccount/seal";
import { redact, runCommand, writeTokenFile } from "../../../provider/serviceAccount/sink";
import { findPlaintextSecrets, secretForms } from "../../kit/secrets/secrets";
import { loose, type Props } from "../../kit/provider/serviceAccount";

const TOKEN = "pims_sa_0123456789abcdef_delivery";
const ctx = {
  serviceAccountId: "sa-1",
  name: "ci",
  projectId: "p-1",
  tokenId: "tok-1",
  tokenExpiresAt: "2030-01-01T00:00:00Z",
};
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pims-delivery-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A real X25519 age identity (`AGE-SECRET-KEY-1…`) and its recipient (`age1…`), made by age-encryption itself. */
async function keypair(): Promise<{ identity: string; recipient: string }> {
  const identity = await age.generateX25519Identity();
  return { identity, recipient: await age.identityToRecipient(identity) };
}

/** age-encryption's decrypter opens an ASCII-armored ciphertext with `identity`. */
async function open(armored: string, identity: string): Promise<string> {
  const d = new age.Decrypter();
  d.addIdentity(identity);
  return d.decrypt(age.armor.decode(armored), "text");
}

describe("check: tokenDelivery", () => {
  const provider = loose(new ServiceAccountProvider());
  const valid: Props = { projectId: "p-1", name: "ci", grants: ["p-1"], expiresIn: 3600 };
  const failuresOf = async (tokenDelivery: unknown) =>
    ((await provider.check({}, { ...valid, tokenDelivery })).failures ?? []).map((f) => `${f.property}: ${f.reason}`);
  let recipient = "";
  beforeAll(async () => ({ recipient } = await keypair()));

  test("each mode alone passes and is normalized to its members", async () => {
    expect(await failuresOf({ ageRecipients: [recipient] })).toEqual([]);
    expect(await failuresOf({ command: ["gh", "secret", "set", "X"], commandTimeoutSeconds: 10 })).toEqual([]);
    expect(await failuresOf({ file: "/tmp/token" })).toEqual([]);
    expect(await failuresOf(undefined)).toEqual([]);
    const r = await provider.check({}, { ...valid, tokenDelivery: { file: "/tmp/t", command: null } });
    expect(r.inputs).toMatchObject({ tokenDelivery: { file: "/tmp/t" } });
  });

  test("none or two modes, bad recipients, empty argv, relative paths and bad time limits are refused", async () => {
    expect(await failuresOf({})).toEqual([
      "tokenDelivery: tokenDelivery must set exactly one of ageRecipients, command or file (got none)",
    ]);
    expect(await failuresOf({ ageRecipients: [recipient], file: "/x" })).toEqual([
      "tokenDelivery: tokenDelivery must set exactly one of ageRecipients, command or file " +
        "(got ageRecipients and file)",
    ]);
    const [bad] = await failuresOf({ ageRecipients: ["age1notarecipient"] });
    expect(bad).toMatch(/^tokenDelivery: tokenDelivery.ageRecipients\[0\] must be an age X25519 recipient/);
    const flipped = recipient.slice(0, -1) + (recipient.endsWith("q") ? "p" : "q"); // a wrong checksum
    expect((await failuresOf({ ageRecipients: [flipped] }))[0]).toMatch(/checksum or length is wrong/);
    const identity = "AGE-SECRET-KEY-1" + "Q".repeat(58);
    const [secretKey] = await failuresOf({ ageRecipients: [identity] });
    expect(secretKey).toMatch(/is an age identity \(a private key\), not a recipient/);
    expect(secretKey).not.toContain("QQQQ"); // the private key is never echoed
    expect(await failuresOf({ ageRecipients: [] })).toEqual([
      "tokenDelivery: tokenDelivery.ageRecipients must be a list of 1 to 20 age recipients (got 0 entries)",
    ]);
    expect(await failuresOf({ command: [] })).toHaveLength(1);
    expect(await failuresOf({ command: [""] })).toEqual([
      'tokenDelivery: tokenDelivery.command[0] must be a non-empty string (got "")',
    ]);
    expect(await failuresOf({ file: "token.txt" })).toEqual([
      'tokenDelivery: tokenDelivery.file must be an absolute path (got "token.txt")',
    ]);
    expect(await failuresOf({ file: "" })).toHaveLength(1);
    expect(await failuresOf({ command: ["x"], commandTimeoutSeconds: 0 })).toHaveLength(1);
    expect(await failuresOf({ file: "/x", commandTimeoutSeconds: 5 })).toEqual([
      "tokenDelivery: tokenDelivery.commandTimeoutSeconds applies only with tokenDelivery.command",
    ]);
  });

  test("values unknown at preview are skipped", async () => {
    expect(await failuresOf(UNKNOWN)).toEqual([]);
    expect(await failuresOf({ ageRecipients: [UNKNOWN] })).toEqual([]);
    expect(await failuresOf({ file: UNKNOWN })).toEqual([]);
  });
});

describe("descriptions and fingerprint", () => {
  test("fingerprint: the first 16 hex digits of SHA-256; '' for no token", () => {
    expect(fingerprint("abc")).toBe("ba7816bf8f01cfea");
    expect(fingerprint("")).toBe("");
  });

  test("tokenDeliveredTo never names an argument beyond the first", () => {
    const r = "age1" + "q".repeat(58);
    expect(deliveredTo({ ageRecipients: [r] })).toBe("age:1 recipient age1qqqqqqqq…");
    expect(deliveredTo({ ageRecipients: [r, r] })).toBe("age:2 recipients age1qqqqqqqq…");
    expect(deliveredTo({ command: ["/usr/bin/vault", "kv", "put", "secret/x", "value=-"] })).toBe("command:vault kv …");
    expect(deliveredTo({ command: ["gh"] })).toBe("command:gh");
    expect(deliveredTo({ file: "/tmp/a/../t" })).toBe("file:/tmp/t");
  });
});

describe("sealed", () => {
  test("every recipient's identity opens the sealed token; only ciphertext is kept", async () => {
    const a = await keypair();
    const b = await keypair();
    const sealed = await sealToken(TOKEN, [a.recipient, b.recipient]);
    expect(sealed).toMatch(/^-----BEGIN AGE ENCRYPTED FILE-----\n[\s\S]+-----END AGE ENCRYPTED FILE-----\n?$/);
    expect(findPlaintextSecrets(sealed, [TOKEN])).toEqual([]);
    for (const { identity } of [a, b]) expect(await open(sealed, identity)).toBe(TOKEN);
    const out = await deliverToken({ ageRecipients: [a.recipient] }, TOKEN, ctx);
    expect(out).toMatchObject({ token: "", tokenHeld: false, tokenFingerprint: fingerprint(TOKEN) });
    expect(out.tokenDeliveredTo).toMatch(/^age:1 recipient age1/);
  });
});

describe("command", () => {
  test("the token on stdin, the account in the environment (no PIMS_TOKEN); output shown redacted", async () => {
    const lines: string[] = [];
    const restore = useLogSink((_s, l) => lines.push(l));
    const got = path.join(tmp, "got");
    process.env.PIMS_TOKEN = "provider-credential-never-passed";
    try {
      const script =
        `cat > "${got}"; echo "id=$PIMS_SERVICE_ACCOUNT_ID tok=$PIMS_TOKEN_ID pt=\${PIMS_TOKEN:-none}"; ` +
        `printf '%s' "$(cat "${got}")" | base64; cat "${got}" >&2`;
      await runCommand(["sh", "-c", script], TOKEN, ctx, 10_000);
    } finally {
      restore();
      delete process.env.PIMS_TOKEN;
    }
    expect(fs.readFileSync(got, "utf8")).toBe(TOKEN);
    expect(lines).toContain("pulumi-pims: token delivery `sh` stdout: id=sa-1 tok=tok-1 pt=none");
    expect(lines).toContain("pulumi-pims: token delivery `sh` stderr: [redacted]");
    expect(findPlaintextSecrets(lines.join("\n"), [TOKEN])).toEqual([]);
  });

  test("a non-zero exit or the time limit fails, naming the program, with no token bytes", async () => {
    const restore = useLogSink(() => undefined);
    try {
      const failed = await runCommand(["sh", "-c", "cat >&2; exit 3"], TOKEN, ctx, 10_000).catch((e: Error) => e);
      expect(String(failed)).toMatch(/token delivery by command `sh` failed: it exited with status 3; .*\[redacted\]/);
      const slow = await runCommand(["sleep", "5"], TOKEN, ctx, 200).catch((e: Error) => e);
      expect(String(slow)).toMatch(/`sleep` failed: it did not finish within 0.2 s/);
      const missing = await runCommand(["/no/such/program"], TOKEN, ctx, 1000).catch((e: Error) => e);
      expect(String(missing)).toMatch(/no such program/);
      expect(findPlaintextSecrets([failed, slow, missing].map(String).join("\n"), [TOKEN])).toEqual([]);
    } finally {
      restore();
    }
  });

  test("redact covers every encoding the secret scan looks for", () => {
    const text = secretForms(TOKEN).join(" | ");
    expect(findPlaintextSecrets(redact(text, TOKEN), [TOKEN])).toEqual([]);
  });
});

describe("file", () => {
  test("written atomically with mode 0600, replacing the previous token; no temporary file left", async () => {
    const file = path.join(tmp, "dir", "token");
    fs.mkdirSync(path.dirname(file));
    await writeTokenFile(file, "first-token-value");
    await writeTokenFile(file, TOKEN);
    expect(fs.readFileSync(file, "utf8")).toBe(TOKEN);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file))).toEqual(["token"]);
    const failed = await writeTokenFile(path.join(tmp, "missing", "token"), TOKEN).catch((e: Error) => e);
    expect(String(failed)).toMatch(/token delivery to file .*missing\/token failed: ENOENT/);
  });
});

describe("the preview says what a tokenDelivery change does (no call)", () => {
  const provider = loose(new ServiceAccountProvider());
  const olds: Props = {
    ...{ projectId: "p-1", name: "ci", description: "", grants: ["p-1"], expiresIn: 0, serviceAccountId: "sa-1" },
    ...{ createdAt: "2024-01-01T00:00:00Z", createdByUserId: "u", tokenId: "t", tokenExpiresAt: "never", token: TOKEN },
  };
  const news: Props = { projectId: "p-1", name: "ci", grants: ["p-1"], expiresIn: 0 };
  async function diffLines(state: Props, delivery: unknown): Promise<{ changes?: boolean; lines: string[] }> {
    const lines: string[] = [];
    const restore = useLogSink((_s, l) => lines.push(l));
    try {
      const d = await provider.diff("sa-1", state, { ...news, tokenDelivery: delivery });
      return { changes: d.changes, lines };
    } finally {
      restore();
    }
  }

  test("set on a held token: an update that delivers it; changed while not held: the next rotation", async () => {
    const set = await diffLines(olds, { file: "/tmp/t" });
    expect(set).toEqual({
      changes: true,
      lines: [
        'pulumi-pims: service account "ci" (sa-1): tokenDelivery set: this update delivers the token the state holds ' +
          "to file:/tmp/t and drops it from the state (no new account)",
      ],
    });
    const delivered = { ...olds, token: "", tokenDelivery: { file: "/tmp/t" }, tokenDeliveredTo: "file:/tmp/t" };
    const moved = await diffLines(delivered, { file: "/tmp/u" });
    expect(moved.changes).toBe(true);
    expect(moved.lines).toEqual([
      'pulumi-pims: service account "ci" (sa-1): tokenDelivery changed: takes effect at the next rotation (the ' +
        "current token is not held: it went to file:/tmp/t)",
    ]);
    expect(await diffLines(delivered, { file: "/tmp/t" })).toEqual({ changes: false, lines: [] });
  });
});
