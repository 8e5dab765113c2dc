/**
 * What only the live suites share (the gate's part, the client and the account teardown, is in scripts/live/): the
 * register of every secret and id the run saw (the recording is scanned for them), and findings (facts about the
 * service the recording cannot show, e.g. where `never` sorts), printed by the gate at the end.
 */
import * as fs from "node:fs";
import { findingsFile, type LiveSettings } from "../../scripts/live/settings";
import { expectNoPlaintextSecrets } from "./secrets/secrets";

/** Every secret and id the run saw: none may appear in the recording. */
export class Seen {
  private readonly values = new Set<string>();
  /** Remembers values (undefined and empty ones are ignored). */
  add(...values: Array<string | undefined>): void {
    for (const v of values) if (v) this.values.add(v);
  }
  all(): string[] {
    return [...this.values];
  }
  /** Fails when the recording holds any of them (naming none). */
  expectNotIn(recording: string | undefined): void {
    if (!recording || !fs.existsSync(recording)) return;
    expectNoPlaintextSecrets(fs.readFileSync(recording, "utf8"), this.all(), `the wire recording ${recording}`);
  }
}

/** Notes a fact about the service for the gate to print (no value, no id: it may be pasted into an issue). */
export function finding(s: LiveSettings, text: string): void {
  if (s.recording) fs.appendFileSync(findingsFile(s.recording), `${text}\n`);
}
