/**
 * Errors a user sees carry no JavaScript stack: the dynamic-provider host prints a failed check, diff, read or delete
 * as `${error}: ${error.stack}`, so every error leaving `newProvider(kind)` reads as its message alone (issue 20).
 */
import { RESOURCE_KINDS } from "../../../provider/kinds";
import { newProvider } from "../../../provider";
import { userFacing } from "../../../provider/userFacing";
import { rejectionOf } from "../../kit/rejection";

/** What the host prints for a failure of check, diff, read or delete. */
const printed = (e: Error): string => `${String(e)}: ${e.stack ?? ""}`;

describe("errors without stacks", () => {
  test("the host's line is the message, once, with no stack frame", () => {
    const e = userFacing(
      new Error(
        "pulumi-pims: service account sa-1 in project p-1 was kept in the state: DELETE … answered 404\nsecond line",
      ),
    );
    expect(printed(e)).toBe(e.message);
    expect(printed(e)).not.toMatch(/\n\s+at /);
  });

  test("a message without ': ', and a thrown non-Error, still read as one message", () => {
    expect(printed(userFacing(new Error("boom")))).toBe("pulumi-pims: boom");
    expect(userFacing("text").message).toBe("text");
  });

  test("the members the host reads from a partial update (id, properties, reasons) are kept", () => {
    const original = Object.assign(new Error("pulumi-pims: rotated but a delete failed"), {
      id: "sa-1",
      properties: { token: "t" },
      reasons: ["r"],
    });
    expect(userFacing(original)).toMatchObject({
      id: "sa-1",
      properties: { token: "t" },
      reasons: ["r"],
      message: original.message,
    });
  });

  test.each([...RESOURCE_KINDS])(
    "%s: a failing read (import) through newProvider carries no stack frame",
    async (kind) => {
      const err = await rejectionOf(Promise.resolve(newProvider(kind).read?.("some-id", undefined)), Error);
      expect(err.message).toMatch(/cannot be imported|cannot read|cannot be read/);
      expect(printed(err)).toBe(err.message);
      expect(printed(err)).not.toMatch(/\n\s+at /);
    },
  );
});
