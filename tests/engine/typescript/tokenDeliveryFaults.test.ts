/**
 * Token delivery's faults (issue 47) through the real engine and the dynamic-provider host: the delivery command fails
 * on the second rotation, so that `pulumi up` fails, the account it created is deleted (the simulator's live count is
 * unchanged), the previous token still answers 200 and the state is as before; then a bad age recipient fails the
 * preview with no call to the service. No issued token in the engine's output, the error, or the state's files.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pims from "pulumi-pims";
import { fingerprint } from "../../../provider/client/token";
import { useEngineStack } from "../../kit/engine/engineSuite";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { liveIds } from "../../kit/sim/simulator";

const sinks = fs.mkdtempSync(path.join(os.tmpdir(), "pims-e2e-delivery-faults-"));
const sink = path.join(sinks, "sink");
// Appends each token (stdin) as a line; refuses the third one (the second rotation's).
const script = `[ -f "${sink}" ] && [ "$(wc -l < "${sink}")" -ge 2 ] && exit 7; cat >> "${sink}"; echo >> "${sink}"`;
const settings: { trigger: string; delivery: pims.TokenDelivery } = {
  trigger: "0",
  delivery: { command: ["sh", "-c", script] },
};
let home = "";

const suite = useEngineStack({
  scratchPrefix: "pims-e2e-delivery-faults-",
  stack: ({ sim, scratch }) => {
    home = sim.addProject({ name: "delivery-faults" }).id;
    return {
      stackName: "faults",
      projectName: "pims-e2e-delivery-faults",
      workDir: scratch,
      program: async () => {
        const a = new pims.ServiceAccount("ci", {
          projectId: home,
          name: "faulty-sink",
          grants: [home],
          expiresIn: 3600,
          keepPreviousToken: true,
          rotationTrigger: settings.trigger,
          tokenDelivery: settings.delivery,
        });
        return { id: a.serviceAccountId, fingerprint: a.tokenFingerprint };
      },
    };
  },
  stopAlso: () => [{ stop: async () => fs.rmSync(sinks, { recursive: true, force: true }) }],
});
const { engine } = suite;

const tokens = (): string[] => fs.readFileSync(sink, "utf8").split("\n").filter(Boolean);
/** The resource's outputs as stored (secrets revealed: their ciphertexts differ from export to export). */
const stored = (): Promise<Record<string, unknown>> => suite.shown("ci");

describe("token delivery faults through the real engine", () => {
  test("the command fails on the 2nd rotation: up fails, new account deleted, previous token works", async () => {
    await suite.up({ create: 2 });
    settings.trigger = "1";
    const rotated = await suite.up({ update: 1, same: 1 });
    expect(fingerprint(tokens()[1])).toBe(rotated.fingerprint.value);
    const before = await stored();
    const live = liveIds(suite.sim, home);
    expect(live).toHaveLength(2);

    settings.trigger = "2";
    suite.clearRequests();
    const failed = await suite.stack.up(engine.opts).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(String(failed)).toMatch(/token delivery by command `sh` failed: it exited with status 7\./);
    expect(String(failed)).toMatch(/The new account sa-\w+ was deleted/);
    const writes = suite.writes().map((w) => w.replace(/ as .*$/, ""));
    expect(writes).toEqual([
      `POST /v2/projects/${home}/service-accounts`,
      expect.stringMatching(new RegExp(`^DELETE /v2/projects/${home}/service-accounts/sa-\\w+$`)),
    ]);
    expect(liveIds(suite.sim, home)).toEqual(live);
    expect(await suite.tokenWorks(tokens()[1], home)).toBe(true);
    expect(await suite.tokenWorks(tokens()[0], home)).toBe(true);
    expect(await stored()).toEqual(before);
    expect(tokens()).toHaveLength(2);
    expectNoPlaintextSecrets(String(failed), suite.sim.issuedSecrets(), "the failed up's error");
  });

  test("a bad age recipient fails the preview with no call to the service", async () => {
    settings.delivery = { ageRecipients: ["age1notarecipient"] };
    suite.clearRequests();
    const failed = await suite.stack.preview(engine.opts).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(String(failed)).toMatch(/tokenDelivery.ageRecipients\[0\] must be an age X25519 recipient/);
    expect(suite.sim.requests).toEqual([]);
    suite.expectNoSecrets();
  });
});
