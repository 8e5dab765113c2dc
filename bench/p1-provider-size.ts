/**
 * P1: the serialized `__provider` of each resource type — what `pulumi.dynamic.Resource` stores in the state of every
 * resource, `serializeFunction(() => provider)` — for pulumi-pims' shim (`providerShim(kind)`) and for the
 * docs-style provider (bench/naive.ts). Goal ≤ 1.5 KB each. P5 reads the same sizes back from real state.
 */
import * as pulumi from "@pulumi/pulumi";
import { FAKE_TOKEN, KINDS, loadNaive, loadShim, log, okOrMissed, round, type Row } from "./harness";

/** Bytes of what dynamic.Resource stores: serializeFunction(() => provider), as pulumi/dynamic does. */
async function storedProviderBytes(
  provider: pulumi.dynamic.ResourceProvider,
): Promise<{ bytes: number; text: string }> {
  const s = await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
  return { bytes: Buffer.byteLength(s.text), text: s.text };
}

export async function p1(): Promise<Row[]> {
  log("P1: serialized __provider size");
  const { providerShim } = loadShim();
  const naive = loadNaive("https://pims.example.com", FAKE_TOKEN);
  const rows: Row[] = [];
  for (const kind of KINDS) {
    const ours = await storedProviderBytes(providerShim(kind));
    const base = await storedProviderBytes(naive.naiveProviders[kind]);
    const ok = ours.bytes <= 1536;
    rows.push({
      id: "P1",
      measure: `__provider bytes: ${kind}`,
      ours: `${ours.bytes} B`,
      baseline: `${base.bytes} B`,
      ratio: round(ours.bytes / base.bytes),
      goal: "≤ 1.5 KB",
      status: okOrMissed(ok),
      reason: ok ? undefined : "the serialized shim captures more than its kind and the module name",
      raw: {
        oursBytes: ours.bytes,
        naiveBytes: base.bytes,
        oursContainsToken: ours.text.includes(FAKE_TOKEN),
        naiveContainsToken: base.text.includes(FAKE_TOKEN),
      },
    });
  }
  return rows;
}
