/**
 * Slow operations show progress: every retry the client makes inside a provider is reported as one line on
 * stderr (the engine shows the dynamic-provider host's stderr in its diagnostics), naming method, path and
 * reason — never the token.
 */
import { VolumeSizeProvider } from "../../../provider/volumeSize";
import type { PimsSimulator } from "../../../simulator";
import { configureRequest, simConfig } from "../../kit/provider/provider";
import { expectNoPlaintextSecrets } from "../../kit/secrets/secrets";
import { startSimulator } from "../../kit/sim/simulator";

describe("retry progress lines from providers", () => {
  let sim: PimsSimulator;
  const saved = process.env.PIMS_RETRY_MIN_DELAY_MS;

  beforeAll(async () => {
    sim = await startSimulator();
    process.env.PIMS_RETRY_MIN_DELAY_MS = "5";
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.PIMS_RETRY_MIN_DELAY_MS;
    else process.env.PIMS_RETRY_MIN_DELAY_MS = saved;
    await sim.stop();
  });

  test("a resize that meets 503 then 429 reports both retries and succeeds", async () => {
    const project = sim.addProject({ name: "progress" });
    sim.addVolume(project.id, { id: "vol-progress", sizeGb: 50 });
    sim.addFault({ method: "PATCH", path: /\/resize$/, kind: "status", status: 503, times: 1 });
    sim.addFault({ method: "PATCH", path: /\/resize$/, kind: "rateLimit", retryAfter: "0", times: 1 });
    const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      const provider = new VolumeSizeProvider();
      await provider.configure(configureRequest(simConfig(sim)));
      await provider.create({ projectId: project.id, volumeId: "vol-progress", sizeGb: 75 });
      const lines = warn.mock.calls.map((c) => c.map(String).join(" "));
      expect(lines).toEqual([
        expect.stringMatching(
          new RegExp(
            `^pulumi-pims: PATCH /v2/projects/${project.id}/volumes/vol-progress/resize: HTTP 503; ` +
              `retry 1 of \\d+ in \\d+ms$`,
          ),
        ),
        // The 429 is repeated by the process's request scheduler, which reports the throttling, not each retry.
        expect.stringMatching(
          /^pulumi-pims: requests to the service: rate limited \(HTTP 429, 1 refused so far\); 1 request waiting, 0 in flight, pace [\d.]+ requests\/s$/,
        ),
      ]);
      expectNoPlaintextSecrets(lines.join("\n"), [sim.token], "retry progress lines");
    } finally {
      warn.mockRestore();
    }
    expect(sim.volume(project.id, "vol-progress")?.sizeGb).toBe(75);
    expect(sim.countRequests({ method: "PATCH", path: /\/resize$/ })).toBe(3);
  });
});
