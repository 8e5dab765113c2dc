/**
 * Closes, after each test file, the V8 inspector sessions that file opened. `@pulumi/pulumi`'s closure serializer
 * (`pulumi.runtime.serializeFunction`, which every `dynamic.Resource` runs, mocks included) connects an in-process
 * inspector session with the Debugger enabled, to map functions to their source, and never disconnects it. Jest gives
 * each test file its own module registry, so each file that serializes a function opens one more session in the same
 * worker, each with the Debugger enabled. Measured on the unit tier: the worker that runs the Pulumi-SDK tests ended
 * with 6 live sessions and a 460 MB heap (the other worker at 65 MB); with this file, none is left open. It does not
 * by itself remove jest's "A worker process has failed to exit gracefully", which that worker still prints now and
 * then (its exit takes longer than the 500 ms jest allows).
 *
 * Registered for every tier in jest.config.ts (`setupFilesAfterEnv`). The session a file opened is closed once the
 * file is done; the next file that serializes opens its own.
 */
import * as inspector from "node:inspector";

/** The sessions connected and not yet closed in this worker (the `inspector` module is shared by all test files). */
interface Tracked {
  __pulumiPimsLiveSessions?: Set<inspector.Session>;
}
const shared = inspector as unknown as Tracked;

if (shared.__pulumiPimsLiveSessions === undefined) {
  const live = new Set<inspector.Session>();
  shared.__pulumiPimsLiveSessions = live;
  const proto = inspector.Session.prototype;
  // The originals, called with the session as `this`.
  const connect = proto.connect;
  const disconnect = proto.disconnect;
  proto.connect = function (this: inspector.Session): void {
    connect.call(this);
    live.add(this);
  };
  proto.disconnect = function (this: inspector.Session): void {
    live.delete(this);
    disconnect.call(this);
  };
}

afterAll(() => {
  for (const session of [...(shared.__pulumiPimsLiveSessions ?? [])]) session.disconnect();
});
