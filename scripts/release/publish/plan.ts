/**
 * The publishing plan: one step per file (or tag) and registry, each able to say, without changing anything, whether
 * its registry already has it with the same bytes, lacks it, or has different bytes. A dry run prints the plan; with
 * `--yes` the missing steps run in order. A registry that holds different bytes stops everything before any upload,
 * naming the file: a published version is never replaced.
 */

/** What a registry holds of one step's file. */
export type Found = { state: "missing" } | { state: "same" } | { state: "differs"; why: string };

export const MISSING: Found = { state: "missing" };
export const SAME: Found = { state: "same" };
export const differs = (why: string): Found => ({ state: "differs", why });

/** One thing to publish. */
export interface Step {
  /** The registry, as users know it: `download address`, `npm`, `PyPI`, `Maven`, `Go`. */
  target: string;
  /** The file or tag. */
  name: string;
  /** Where it goes (a URL, a registry, a remote). */
  where: string;
  /** Looks, and changes nothing. */
  check(): Promise<Found>;
  /** Publishes it (only called when check said missing). */
  publish(): Promise<void>;
}

/** What a run did: the steps published and the ones already there. */
export interface Outcome {
  published: string[];
  alreadyThere: string[];
}

const label = (s: Step): string => `${s.target}: ${s.name}`;

/**
 * Checks every step, then (with `yes`) publishes the missing ones in order. `say` gets one line per step and the
 * summary. Throws, before publishing anything, when a registry holds different bytes for a file of this release.
 */
export async function runPlan(steps: Step[], yes: boolean, say: (line: string) => void): Promise<Outcome> {
  const found: Found[] = [];
  for (const step of steps) {
    const f = await step.check();
    found.push(f);
    const what = f.state === "same" ? "already there, same bytes" : f.state === "missing" ? "to publish" : "DIFFERS";
    say(`${what.padEnd(25)} ${label(step)} -> ${step.where}`);
  }
  const bad = steps.map((s, i) => [s, found[i]] as const).filter(([, f]) => f.state === "differs");
  if (bad.length > 0)
    throw new Error(
      bad
        .map(([s, f]) => `${label(s)} at ${s.where} differs from dist/: ${f.state === "differs" ? f.why : ""}`)
        .join("\n") +
        "\nnothing was published: a published version is never replaced. Build the release from its tag again, or " +
        "release a new version.",
    );
  const missing = steps.filter((_, i) => found[i].state === "missing");
  const outcome: Outcome = {
    published: [],
    alreadyThere: steps.filter((_, i) => found[i].state === "same").map(label),
  };
  if (missing.length === 0) {
    say(`nothing to publish: all ${steps.length} files and tags are already there with the same bytes`);
    return outcome;
  }
  if (!yes) {
    say(`dry run: ${missing.length} of ${steps.length} to publish; run again with --yes to publish them`);
    return outcome;
  }
  for (const [i, step] of missing.entries()) {
    say(`[${i + 1}/${missing.length}] publishing ${label(step)} -> ${step.where}`);
    await step.publish();
    outcome.published.push(label(step));
  }
  say(`published ${missing.length} of ${steps.length} (${outcome.alreadyThere.length} were already there)`);
  return outcome;
}
