/**
 * Pulumi's mocks for programs run inside jest: the registrations the SDK sends to the mock monitor, and an Output's
 * value once it resolves.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { MockMonitor } from "@pulumi/pulumi/runtime/mocks";

/** One RegisterResourceRequest as the SDK sent it to the (mock) resource monitor. */
export interface Registration {
  /** The type token, e.g. `pulumi-nodejs:dynamic/pims:Project`. */
  type: string;
  /** The resource name. */
  name: string;
  /** The resource option as the engine sees it (the SDK's own entries merged with the user's). */
  additionalSecretOutputs: string[];
  /** The inputs as sent, secrets still wrapped (`{<sig>: <secret>, value}`), with `__provider`. */
  object: Record<string, unknown>;
}

/**
 * Installs pulumi mocks for the enclosing describe block (project "proj", stack "stack", not a preview) and records
 * every resource registration sent to the mock monitor; returns the list it fills. The mocks' newResource does not
 * receive resource options: the request to the monitor carries them (additionalSecretOutputs) as the engine sees
 * them. The recording stops after the block.
 */
export function captureRegistrations(mocks: pulumi.runtime.Mocks): Registration[] {
  const registered: Registration[] = [];
  let spy: jest.SpyInstance | undefined;
  interface RegisterRequest {
    getType(): string;
    getName(): string;
    getAdditionalsecretoutputsList(): string[];
    getObject(): { toJavaScript(): Record<string, unknown> };
  }

  beforeAll(async () => {
    // loaded here, not at the top: most users of this file never need the pulumi runtime
    const { runtime } = await import("@pulumi/pulumi");
    const { MockMonitor: Monitor } = await import("@pulumi/pulumi/runtime/mocks");
    const original = Monitor.prototype.registerResource;
    spy = jest.spyOn(Monitor.prototype, "registerResource").mockImplementation(function (
      this: MockMonitor,
      req: RegisterRequest,
      cb: (err: unknown, res: unknown) => void,
    ) {
      registered.push({
        type: req.getType(),
        name: req.getName(),
        additionalSecretOutputs: req.getAdditionalsecretoutputsList(),
        object: req.getObject().toJavaScript(),
      });
      return original.call(this, req, cb);
    });
    await runtime.setMocks(mocks, "proj", "stack", false);
  });
  afterAll(() => spy?.mockRestore());
  return registered;
}

/** The value of an output, once it resolves. */
export function outputValue<T>(o: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => o.apply(resolve));
}
