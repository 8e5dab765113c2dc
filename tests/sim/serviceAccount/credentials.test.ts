/**
 * ServiceAccount against the simulator: where its credentials come from (stack config, the environment, neither),
 * and a scan of every error text and log line for plaintext secrets.
 */
import { MissingCredentialsError } from "../../../provider/configErrors";
import { ServiceAccountProvider } from "../../../provider/serviceAccount";
import { configureRequest } from "../../kit/provider/provider";
import { loose, useServiceAccountSuite } from "../../kit/provider/serviceAccount";
import { restoreEnvAfter } from "../../kit/env";

const suite = useServiceAccountSuite();

// ---- credentials -----------------------------------------------------------------------------------------------

describe("credentials", () => {
  restoreEnvAfter("each", ["PIMS_TOKEN", "PIMS_BASE_URL"]);

  test("no configure and no env: MissingCredentialsError naming pims:token and PIMS_TOKEN", async () => {
    delete process.env.PIMS_TOKEN;
    delete process.env.PIMS_BASE_URL;
    const project = suite.sim.addProject();
    for (const provider of [
      loose(new ServiceAccountProvider()),
      await (async () => {
        const p = new ServiceAccountProvider();
        await p.configure(configureRequest({}));
        return loose(p);
      })(),
    ]) {
      const err = await suite.rejection(
        provider.create({ projectId: project.id, name: "x", description: "", grants: [project.id], expiresIn: 60 }),
      );
      expect(err).toBeInstanceOf(MissingCredentialsError);
      expect(err.message).toContain("pims:token");
      expect(err.message).toContain("PIMS_TOKEN");
      const del = await suite.rejection(provider.delete("sa-1", { projectId: project.id }));
      expect(del).toBeInstanceOf(MissingCredentialsError);
    }
    expect(suite.sim.serviceAccounts(project.id)).toEqual([]);
  });

  test("env fallback: PIMS_TOKEN / PIMS_BASE_URL, read at call time", async () => {
    const project = suite.sim.addProject();
    const bare = new ServiceAccountProvider(); // created before the env is set
    await bare.configure(configureRequest({}));
    const provider = loose(bare);
    process.env.PIMS_TOKEN = suite.sim.token;
    process.env.PIMS_BASE_URL = suite.sim.baseUrl;
    const { id } = await provider.create({
      projectId: project.id,
      name: "from-env",
      description: "",
      grants: [project.id],
      expiresIn: 60,
    });
    expect(suite.sim.serviceAccounts(project.id).map((a) => a.id)).toEqual([id]);
    await provider.delete(id, { projectId: project.id });
    expect(suite.sim.deletedServiceAccounts()).toContain(id);
  });
});

// ---- secret scan (last: it reads what every test above produced) --------------------------------------------

describe("secret scan", () => {
  test("no issued secret, admin token or env token in any error message, check reason or log line", () => {
    suite.expectNoSecretsSeen({ secrets: 1, texts: 4 }); // check reasons hold no secret: tests/unit
  });
});
