/**
 * Configuration problems the user fixes outside the code (a missing token, a bad base address or setting): errors that
 * read as one plain message wherever they surface — the dynamic-provider host, the program host, the `pims` CLI.
 */

/**
 * Who reads the message: a Pulumi program or provider (`pulumi config` or the environment) or the `pims` CLI
 * (the environment or `--base-url`; it has no stack config).
 */
export type CredentialsAudience = "pulumi" | "cli";

/** Options of the credential errors and resolution. */
export interface CredentialsOptions {
  /** Who reads the messages: a Pulumi user (stack config or environment) or a `pims` CLI user. Default `pulumi`. */
  audience?: CredentialsAudience;
}

/**
 * A problem the user fixes outside the code: one plain line, no stack. The dynamic-provider host prints a failure of
 * check, diff, read and delete as `${error}: ${error.stack}`, and the program host prints an unknown error's stack;
 * here `toString()` is the headline and `stack` the rest, so that line reads the message exactly once, and
 * `__pulumiRunError` makes the program host print only the message (as it does for its own `RunError`). `message`
 * holds the whole text for everything else (the engine's error line, the CLI, tests).
 */
export class PimsConfigurationError extends Error {
  /** The first line of the message: what is wrong, without the details. */
  readonly headline: string;

  constructor(headline: string, detail: string) {
    super(`${headline}: ${detail}`);
    this.name = new.target.name;
    this.headline = headline;
    Object.defineProperty(this, "stack", { value: detail, writable: true, configurable: true, enumerable: false });
    Object.defineProperty(this, "__pulumiRunError", { value: true, enumerable: false });
  }

  override toString(): string {
    return this.headline;
  }
}

/** A token or base address is set nowhere. The message names both ways to set each missing value. */
export class MissingCredentialsError extends PimsConfigurationError {
  /** Which settings are missing. */
  readonly missing: ReadonlyArray<"token" | "baseUrl">;

  constructor(missing: Array<"token" | "baseUrl">, options: CredentialsOptions = {}) {
    const cli = options.audience === "cli";
    const lines = missing.map((m) =>
      m === "token"
        ? cli
          ? "set the service-account token in the PIMS_TOKEN environment variable"
          : "set the service-account token with `pulumi config set --secret pims:token <token>` or the PIMS_TOKEN " +
            "environment variable"
        : cli
          ? "set the service address with --base-url <url> or the PIMS_BASE_URL environment variable"
          : "set the service address with `pulumi config set pims:baseUrl <url>` or the PIMS_BASE_URL environment " +
            "variable",
    );
    super(cli ? "pims is not configured" : "pulumi-pims is not configured", `${lines.join("; and ")}.`);
    this.missing = [...missing];
  }
}

/** A base address or setting that cannot be used; the message names where it was set and the rule. */
export class InvalidBaseUrlError extends PimsConfigurationError {
  constructor(reason: string) {
    super("pulumi-pims is not configured correctly", reason);
  }
}
