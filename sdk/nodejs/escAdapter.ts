/**
 * `createEscRotator`, the Pulumi ESC rotation adapter (provider/escRotator), for a host that
 * serves it itself (a serverless function). It is loaded when first called, so `import "pulumi-pims"` in a program
 * loads neither the adapter nor `jose`, as sealing loads `age-encryption` only for a stack that seals.
 */
import type { EscRotator, EscRotatorOptions } from "../../provider/escRotator";
import type { EscSettingTexts } from "../../provider/settings";

export type {
  EscRotator,
  EscRotatorMessage,
  EscRotatorOptions,
  EscRotatorResponse,
  RotatedToken as EscRotatedToken,
} from "../../provider/escRotator";

/**
 * An adapter with `options`; `flags` are the settings' texts the CLI's flags give (see `EscRotatorOptions`).
 * Throws a `PimsConfigurationError` when the audience or the allow-list is missing, or the pims credential is.
 */
export function createEscRotator(options: EscRotatorOptions = {}, flags: EscSettingTexts = {}): EscRotator {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const adapter = require("../../provider/escRotator") as typeof import("../../provider/escRotator");
  return adapter.createEscRotator(options, flags);
}
