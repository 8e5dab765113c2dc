/**
 * The one sink for what the provider tells the user while it works, with one severity rule:
 *
 * - **progress**: the work going as planned, or waiting for something: a rotation done, a retry, a pace learnt from
 *   429s, a create being watched, a refresh that checks again later;
 * - **warning**: something the user should act on or know changed outside the plan: an account no state holds, an
 *   account kept because its absence cannot be confirmed, something left in the service on delete, a setting refused,
 *   a recording that cannot be written.
 *
 * Where the lines go is the process's choice. A provider process the engine started (the plugin, the dynamic-provider
 * host) sends both kinds to the engine's `Log` with their severities (provider/engineLog.ts); anywhere else (the
 * `pims` CLI, a test) the default sink writes them to stderr through `console.warn`.
 */

/** What a line is: see the rule above. */
export type Severity = "progress" | "warning";

/** Where lines go. */
export type LogSink = (severity: Severity, line: string) => void;

/** Outside a provider process the engine started: stderr. */
const stderrSink: LogSink = (_severity, line) => console.warn(line);

let sink: LogSink = stderrSink;

/** The work going as planned, or waiting: shown, never counted as a warning. */
export function progress(line: string): void {
  sink("progress", line);
}

/** Something the user should act on, or know changed outside the plan. */
export function warning(line: string): void {
  sink("warning", line);
}

/** A line whose severity was decided elsewhere (e.g. by a refresh's rules). */
export function emit(severity: Severity, line: string): void {
  sink(severity, line);
}

/** Sends every line to `next` from now on; returns the function that puts the previous sink back. */
export function useLogSink(next: LogSink): () => void {
  const previous = sink;
  sink = next;
  return () => {
    sink = previous;
  };
}
