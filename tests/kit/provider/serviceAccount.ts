/**
 * The ServiceAccount provider under test (unit and sim): its methods taking the loose JSON the engine sends (tests
 * feed malformed values on purpose), checks of what the outputs look like, and the sim suites' hook.
 */
import { ServiceAccountProvider, type ServiceAccountOutputs } from "../../../provider/serviceAccount";
import type { PimsSimulator } from "../../../simulator";
import { configureRequest, simConfig } from "./provider";
import { rejectionOf } from "../rejection";
import { expectNoPlaintextSecrets } from "../secrets/secrets";
import { startSimulator } from "../sim/simulator";

export type Props = Record<string, unknown>;

/** The provider's lifecycle methods, typed for arbitrary JSON (what the dynamic-provider host may pass). */
export interface LooseServiceAccountProvider {
  readonly provider: ServiceAccountProvider;
  check(olds: object, news: object): ReturnType<ServiceAccountProvider["check"]>;
  diff(id: string, olds: object, news: object): ReturnType<ServiceAccountProvider["diff"]>;
  create(inputs: object): Promise<{ id: string; outs: ServiceAccountOutputs }>;
  read(id: string, props?: object): ReturnType<ServiceAccountProvider["read"]>;
  update(id: string, olds: object, news: object): Promise<ServiceAccountOutputs>;
  delete(id: string, props: object): Promise<void>;
}

export function loose(provider: ServiceAccountProvider): LooseServiceAccountProvider {
  return {
    provider,
    check: (olds, news) => provider.check(olds as never, news as never),
    diff: (id, olds, news) => provider.diff(id, olds as never, news as never),
    create: async (inputs) => {
      const r = await provider.create(inputs as never);
      if (!r.outs) throw new Error("create returned no outputs");
      return { id: r.id, outs: r.outs };
    },
    read: (id, props) => provider.read(id, props as never),
    update: async (id, olds, news) => {
      const r = await provider.update(id, olds as never, news as never);
      if (!r.outs) throw new Error("update returned no outputs");
      return r.outs;
    },
    delete: (id, props) => provider.delete(id, props as never),
  };
}

/** True when `v` survives JSON unchanged: no undefined anywhere, no Output/secret wrapper objects. */
export function isPlainJson(v: unknown): boolean {
  return JSON.stringify(JSON.parse(JSON.stringify(v))) === JSON.stringify(v) && deepPlain(v);
}
function deepPlain(v: unknown): boolean {
  if (v === undefined) return false;
  if (Array.isArray(v)) return v.every(deepPlain);
  if (typeof v === "object" && v !== null) {
    if (Object.getPrototypeOf(v) !== Object.prototype) return false;
    return Object.values(v).every(deepPlain);
  }
  return true;
}

/** The outputs with the token removed: the token may live only under `token` (the one secret output). */
export const withoutToken = (o: object): string => JSON.stringify({ ...o, token: "<removed>" });

/** Inputs of a small valid account. */
export const inputsFor = (projectId: string, name: string, extra: Props = {}): Props => ({
  projectId,
  name,
  description: "",
  grants: [projectId],
  expiresIn: 3600,
  ...extra,
});

/** A ServiceAccount sim suite's simulator, its recorders and its helpers (see useServiceAccountSuite). */
export interface ServiceAccountSuite {
  /** The simulator, started once for the file. */
  readonly sim: PimsSimulator;
  /** Every error message and check reason a test recorded: scanned for secrets by expectNoSecretsSeen. */
  readonly texts: string[];
  /** Awaits a rejection, records its message and stack for the scan, and returns the error. */
  rejection(p: Promise<unknown>): Promise<Error>;
  /** A provider configured for the simulator (stack config `pims:token`/`pims:baseUrl`). */
  configured(extra?: ConstructorParameters<typeof ServiceAccountProvider>[0]): Promise<LooseServiceAccountProvider>;
  /**
   * Fails when an issued secret or the admin token occurs in a recorded text or console line; the minimums keep the
   * scan honest (it must look for real secrets in real texts).
   */
  expectNoSecretsSeen(min: { secrets: number; texts: number }): void;
}

/**
 * Jest hooks of a ServiceAccount sim suite: the simulator started for the file and every console line captured (and
 * silenced) until it ends, for the secret scan at the end of the file.
 */
export function useServiceAccountSuite(): ServiceAccountSuite {
  let sim: PimsSimulator | undefined;
  const texts: string[] = [];
  const logged: string[] = [];
  const restoreConsole: Array<() => void> = [];
  const ready = (): PimsSimulator => {
    if (!sim) throw new Error("useServiceAccountSuite: the simulator exists only inside tests");
    return sim;
  };
  beforeAll(async () => {
    sim = await startSimulator();
    for (const level of ["log", "info", "warn", "error", "debug"] as const) {
      const spy = jest.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        logged.push(args.map(String).join(" "));
      });
      restoreConsole.push(() => spy.mockRestore());
    }
  });
  afterAll(async () => {
    for (const r of restoreConsole) r();
    await sim?.stop();
  });
  return {
    get sim() {
      return ready();
    },
    texts,
    async rejection(p: Promise<unknown>): Promise<Error> {
      const err = await rejectionOf(p);
      texts.push(err.message, String(err.stack ?? ""));
      return err;
    },
    async configured(extra = {}): Promise<LooseServiceAccountProvider> {
      const p = new ServiceAccountProvider(extra);
      await p.configure(configureRequest(simConfig(ready())));
      return loose(p);
    },
    expectNoSecretsSeen(min: { secrets: number; texts: number }): void {
      const s = ready();
      const secrets = [...s.issuedSecrets(), s.token];
      expect(s.issuedSecrets().length).toBeGreaterThanOrEqual(min.secrets); // the scan looks for real secrets
      expect(texts.length).toBeGreaterThanOrEqual(min.texts); // ...in real texts
      process.stdout.write(
        `scanned ${texts.length} error/check texts and ${logged.length} log lines for ${secrets.length} secrets\n`,
      );
      expectNoPlaintextSecrets(texts.join("\n"), secrets, "error messages and check reasons");
      expectNoPlaintextSecrets(logged.join("\n"), secrets, "console output");
    },
  };
}
