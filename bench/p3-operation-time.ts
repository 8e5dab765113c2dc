/**
 * P3: the time of a provider operation (as the provider host runs it: one configured provider, which builds its
 * client per call) ÷ the equivalent raw axios call to the same endpoint of a simulator in its own process, run
 * alternately after a warm-up; the ratio is of the medians. Goal ≤ 1.2.
 */
import {
  configuredProvider,
  interleaved,
  log,
  median,
  msText,
  okOrMissed,
  quantile,
  round,
  startSimProcess,
  type BenchOptions,
  type Row,
} from "./harness";

const axios = require("axios") as typeof import("axios").default;

interface Case {
  measure: string;
  ours: () => Promise<unknown>;
  raw: () => Promise<unknown>;
}

async function casesFor(baseUrl: string, token: string, projectId: string): Promise<Case[]> {
  const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
  const appId = `${projectId}-web`;
  const vol = await configuredProvider("VolumeSize", baseUrl, token);
  const sec = await configuredProvider("AppSecrets", baseUrl, token);
  const sa = await configuredProvider("ServiceAccount", baseUrl, token);
  const proj = await configuredProvider("Project", baseUrl, token);
  const volIn = { projectId, volumeId: "default-us-east-1", sizeGb: 100 };
  const secIn = { projectId, appId, secrets: { API_KEY: "bench-value", DB_URL: "postgres://bench" } };
  const saIn = { projectId, name: "bench-sa", description: "", grants: [projectId], expiresIn: 3600 };
  const v2 = `${baseUrl}/v2/projects`;
  return [
    {
      measure: "VolumeSize.update ÷ raw PATCH resize",
      ours: () => vol.update!(`${projectId}/default-us-east-1`, volIn, volIn),
      raw: () => axios.patch(`${v2}/${projectId}/volumes/default-us-east-1/resize`, { newSizeGb: 100 }, { headers }),
    },
    {
      measure: "AppSecrets.update ÷ raw PATCH secrets",
      ours: () => sec.update!(`${projectId}/${appId}`, { ...secIn, secretNames: ["API_KEY", "DB_URL"] }, secIn),
      raw: () => axios.patch(`${v2}/${projectId}/apps/${appId}/secrets`, secIn.secrets, { headers }),
    },
    {
      measure: "ServiceAccount.create ÷ raw POST service-accounts",
      ours: () => sa.create(saIn),
      raw: () =>
        axios.post(
          `${v2}/${projectId}/service-accounts`,
          { name: saIn.name, description: "", grants: saIn.grants, expiresIn: 3600 },
          { headers },
        ),
    },
    {
      measure: "Project.create ÷ raw POST projects",
      ours: () => proj.create({ name: "bench-project" }),
      raw: () => axios.post(v2, { name: "bench-project" }, { headers }),
    },
  ];
}

export async function p3({ quick }: BenchOptions): Promise<Row[]> {
  const iterations = quick ? 60 : 300;
  const warmup = quick ? 10 : 50;
  log(`P3: provider operation vs raw axios (${iterations} interleaved iterations after ${warmup} warm-up)`);
  const projectId = "p-bench0003";
  const sim = await startSimProcess({
    projects: [projectId],
    volumes: [[projectId, "default-us-east-1", 100]],
    apps: [[projectId, "web"]],
  });
  const rows: Row[] = [];
  try {
    for (const c of await casesFor(sim.baseUrl, sim.token, projectId)) {
      const t = await interleaved(c.ours, c.raw, iterations, warmup);
      const mo = median(t.a);
      const mr = median(t.b);
      const ok = mo / mr <= 1.2;
      rows.push({
        id: "P3",
        measure: c.measure,
        ours: msText(mo),
        baseline: msText(mr),
        ratio: round(mo / mr),
        goal: "≤ 1.2",
        status: okOrMissed(ok),
        reason: ok ? undefined : "see bench/results.json raw.p90 and bench/README.md",
        raw: {
          iterations,
          warmup,
          oursMedianMs: round(mo, 4),
          rawMedianMs: round(mr, 4),
          oursP90Ms: round(quantile(t.a, 0.9), 4),
          rawP90Ms: round(quantile(t.b, 0.9), 4),
        },
      });
    }
  } finally {
    await sim.stop();
  }
  return rows;
}
