/**
 * `age-encryption` is loaded only when a stack seals (issue 53): loading it and its `@noble` packages is most of what
 * sealing costs a provider process (bench/README.md, P5s), so a ServiceAccount that holds its token, or delivers it to
 * a command or a file, never loads it. The module is replaced by a factory that counts its loads and returns the real
 * module, so the sealing control at the end works as it does in a stack.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { useLogSink } from "../../../provider/client/log";
import { ServiceAccountProvider } from "../../../provider/serviceAccount";
import { deliverToken } from "../../../provider/serviceAccount/delivery";
import { loose, type Props } from "../../kit/provider/serviceAccount";

const mockAge = { loads: 0, depth: 0 };
jest.mock("age-encryption", () => {
  // The package's dist/recipients.js (and armor.js) import its own index.js, which jest maps to this mock again while
  // the first call is still loading it: count the outermost call only, and let the inner ones get the real module.
  if (mockAge.depth === 0) mockAge.loads++;
  mockAge.depth++;
  try {
    return jest.requireActual("age-encryption");
  } finally {
    mockAge.depth--;
  }
});

const TOKEN = "pims_sa_0123456789abcdef_lazy";
const ctx = { serviceAccountId: "sa-1", name: "ci", projectId: "p-1", tokenId: "tok-1", tokenExpiresAt: "never" };
const valid: Props = { projectId: "p-1", name: "ci", grants: ["p-1"], expiresIn: 3600 };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pims-seal-lazy-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
// The diffs' progress lines: not what this file is about.
let restoreLog: () => void;
beforeAll(() => (restoreLog = useLogSink(() => undefined)));
afterAll(() => restoreLog());

test("a ServiceAccount that does not seal never loads age-encryption: check, diff, its token's delivery", async () => {
  // The whole provider package loaded, as the provider host loads it.
  require("../../../provider");
  const provider = loose(new ServiceAccountProvider());
  const file = path.join(tmp, "token");
  for (const tokenDelivery of [undefined, { file }, { command: ["true"] }]) {
    const { inputs, failures } = await provider.check({}, { ...valid, tokenDelivery });
    expect(failures ?? []).toEqual([]);
    await provider.diff("sa-1", inputs ?? {}, { ...inputs, description: "changed" });
    await deliverToken(tokenDelivery, TOKEN, ctx);
  }
  expect(fs.readFileSync(file, "utf8")).toBe(TOKEN);
  expect(mockAge.loads).toBe(0);
});

test("a ServiceAccount that seals loads it once, at its check", async () => {
  const age = jest.requireActual<typeof import("age-encryption")>("age-encryption");
  const recipient = await age.identityToRecipient(await age.generateX25519Identity());
  const provider = loose(new ServiceAccountProvider());
  const { failures } = await provider.check({}, { ...valid, tokenDelivery: { ageRecipients: [recipient] } });
  expect(failures ?? []).toEqual([]);
  expect(mockAge.loads).toBe(1);
  const sealed = await deliverToken({ ageRecipients: [recipient] }, TOKEN, ctx);
  expect(sealed.sealedToken).toMatch(/^-----BEGIN AGE ENCRYPTED FILE-----/);
  expect(mockAge.loads).toBe(1);
});
