/**
 * Closes, after each test file, the V8 inspector sessions that file opened. `@pulumi/pulumi`'s closure serializer
 * (`pulumi.runtime.serializeFunction`, which every `dynamic.Resource` runs, mocks included) connects an in-process
 * inspector session with the Debugger enabled, to map functions to their source, and never disconnects it. Jest gives
 * each test file its own module registry, so each file that serializes a function opens one more session in the same
 * worker, each with the Debugger enabled.
 *
 * Why the patch below is built the way it is: whatever a test file creates belongs to that file's vm context, and
 * one closure of it kept alive keeps the whole context alive: its module registry, with its own copy of
 * `@pulumi/pulumi` and of the `typescript` the serializer loads (about 30 MB a file). Patching `Session.prototype`
 * (one object shared by every file) with functions made here chained a new wrapper per file (the guard was on the
 * per-file `import *` copy of the module) and held every file of the worker: the Pulumi-SDK worker of the unit tier
 * ended at 380 MB of live heap, and exiting (freeing it) took more than the 500 ms jest-worker waits after its END
 * message before it prints "A worker process has failed to exit gracefully". So the patch is installed once per
 * worker, and its functions and set are made in the worker's own context (`vm.runInThisContext`), never in a file's.
 *
 * Registered for every tier in jest.config.ts (`setupFilesAfterEnv`).
 */
import inspector = require("node:inspector");
import vm = require("node:vm");

/** The sessions connected and not yet closed in this worker; the prototype is shared by every test file. */
type Proto = typeof inspector.Session.prototype & { [LIVE]?: Set<inspector.Session> };
const LIVE = Symbol.for("pulumi-pims/liveInspectorSessions");
const proto = inspector.Session.prototype as Proto;

if (proto[LIVE] === undefined) {
  const install = vm.runInThisContext(`(function (proto, key) {
    const live = new Set();
    const connect = proto.connect;
    const disconnect = proto.disconnect;
    proto.connect = function () { connect.call(this); live.add(this); };
    proto.disconnect = function () { live.delete(this); disconnect.call(this); };
    Object.defineProperty(proto, key, { value: live });
  })`) as (p: Proto, key: symbol) => void;
  install(proto, LIVE);
}

afterAll(() => {
  for (const session of [...(proto[LIVE] ?? [])]) session.disconnect();
});
