/** The fault switch: rules that make matching requests fail, wait or lose their connection. */
import type { FaultRule } from "./options";
import { methodMatches, pathMatches, seededRandom } from "./util";

interface ActiveFault {
  rule: FaultRule;
  remaining: number;
  random: () => number;
}

export class Faults {
  private readonly active: ActiveFault[] = [];

  add(rule: FaultRule): void {
    if (rule.afterCommit && rule.kind !== "status" && rule.kind !== "drop") {
      throw new Error(`afterCommit applies to faults of kind status or drop, not ${rule.kind}`);
    }
    this.active.push({ rule, remaining: rule.times ?? Infinity, random: seededRandom(rule.seed ?? 1) });
  }

  clear(): void {
    this.active.length = 0;
  }

  /** The first rule that matches, has uses left and passes its probability draw; consumes one use. */
  take(method: string, pathname: string): FaultRule | undefined {
    for (const fault of this.active) {
      const { rule } = fault;
      if (fault.remaining <= 0 || !methodMatches(rule.method, method) || !pathMatches(rule.path, pathname)) continue;
      if (rule.probability !== undefined && rule.probability < 1 && fault.random() >= rule.probability) continue;
      fault.remaining--;
      return rule;
    }
    return undefined;
  }
}
