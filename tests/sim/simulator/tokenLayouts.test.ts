/**
 * Token layouts of `POST /v2/projects/{project_id}/service-accounts` answers: member names, expiry forms, how a
 * layout is chosen, and the unreadable layouts. Whatever the layout, the secret works as a bearer token.
 */
import { PimsSimulator, READABLE_TOKEN_LAYOUT_NAMES, type TokenLayoutName } from "../../../simulator";
import { simCalls } from "../../kit/sim/http";

let sim: PimsSimulator;
const { call, seedApp } = simCalls(() => sim);

afterEach(async () => {
  await sim?.stop();
});

type Expiry = [
  member: string,
  finite: "rfc3339" | "epochSeconds" | "epochMillis",
  never: "never" | null | 0 | "absent",
];
/** What each layout must look like, written out independently of the simulator's own table. */
const EXPECTED: Record<string, { secret: string; id: [string, "string" | "number"]; expiry: Expiry }> = {
  default: { secret: "secret", id: ["id", "string"], expiry: ["expiresAt", "rfc3339", "never"] },
  accessToken: { secret: "accessToken", id: ["tokenId", "string"], expiry: ["expiresAt", "epochSeconds", 0] },
  access_token: { secret: "access_token", id: ["token_id", "string"], expiry: ["expires_at", "rfc3339", null] },
  jwt: { secret: "jwt", id: ["id", "string"], expiry: ["expiry", "epochMillis", "absent"] },
  plaintext: { secret: "plaintext", id: ["id", "string"], expiry: ["expiration", "rfc3339", "never"] },
  value: { secret: "value", id: ["tokenId", "number"], expiry: ["validUntil", "epochSeconds", null] },
  secret: { secret: "secret", id: ["token_id", "string"], expiry: ["expiresAt", "epochMillis", 0] },
  key: { secret: "key", id: ["id", "string"], expiry: ["expires_at", "rfc3339", "absent"] },
  token: { secret: "token", id: ["id", "string"], expiry: ["expiresAt", "rfc3339", "never"] },
  AccessToken: { secret: "AccessToken", id: ["TokenId", "string"], expiry: ["ExpiresAt", "rfc3339", null] },
  ACCESS_TOKEN: { secret: "ACCESS_TOKEN", id: ["TOKEN_ID", "string"], expiry: ["EXPIRES_AT", "epochSeconds", 0] },
};

interface Created {
  status: number;
  body: Record<string, unknown>;
  text: string;
}

async function create(projectId: string, expiresIn: number): Promise<Created> {
  const r = await call("POST", `/v2/projects/${projectId}/service-accounts`, {
    body: { name: "ci", grants: [projectId], expiresIn },
  });
  return { status: r.status, body: r.json as Record<string, unknown>, text: r.text };
}

/** The API key the account shows up as (its id is the token id). */
async function keyOf(projectId: string, accountId: unknown): Promise<{ id: string; expiresAt: string | null }> {
  const keys = (await call("GET", `/v2/projects/${projectId}/api-keys`)).json as Array<{
    id: string;
    principalId: unknown;
    expiresAt: string | null;
  }>;
  const key = keys.find((k) => k.principalId === accountId);
  if (!key) throw new Error(`no API key for ${String(accountId)}`);
  return key;
}

async function works(projectId: string, secret: unknown): Promise<boolean> {
  if (typeof secret !== "string") return false;
  return (await call("GET", `/v2/projects/${projectId}/invoices`, { token: secret })).status === 200;
}

describe("each readable layout, forced", () => {
  it.each(Object.keys(EXPECTED))("%s: member names, expiry forms, a working secret", async (name) => {
    const layout = name as TokenLayoutName;
    sim = await PimsSimulator.start({ profile: "quirky", tokenLayout: layout });
    const { projectId } = seedApp();
    const spec = EXPECTED[name];
    for (const expiresIn of [3600, 0]) {
      const { status, body } = await create(projectId, expiresIn);
      expect(status).toBe(200);
      expect(sim.tokenLayoutOf(body.id as string)).toBe(layout);
      const token = body.token as Record<string, unknown>;
      expect(token).toEqual(expect.any(Object));
      expect(await works(projectId, token[spec.secret])).toBe(true);

      const [idMember, idType] = spec.id;
      const key = await keyOf(projectId, body.id);
      expect(typeof token[idMember]).toBe(idType);
      expect(String(token[idMember])).toBe(key.id);

      const [member, finite, never] = spec.expiry;
      if (expiresIn === 0) {
        if (never === "absent") expect(token).not.toHaveProperty(member);
        else expect(token[member]).toBe(never);
        expect(key.expiresAt).toBeNull(); // the quirky API-key list says null for "never"
      } else {
        const ms = Date.parse(key.expiresAt ?? "");
        const want =
          finite === "rfc3339" ? new Date(ms).toISOString() : finite === "epochMillis" ? ms : Math.floor(ms / 1000);
        expect(token[member]).toBe(want);
        expect(ms - Date.parse(body.createdAt as string)).toBe(3600_000);
      }
      // the only strings in the token object that work as bearer tokens: the secret
      const working = [];
      for (const value of Object.values(token)) if (await works(projectId, value)) working.push(value);
      expect(working).toEqual([token[spec.secret]]);
    }
  });

  it("string: the token is the secret itself", async () => {
    sim = await PimsSimulator.start({ profile: "quirky", tokenLayout: "string" });
    const { projectId } = seedApp();
    const { body } = await create(projectId, 60);
    expect(typeof body.token).toBe("string");
    expect(await works(projectId, body.token)).toBe(true);
    expect(sim.issuedSecrets()).toContain(body.token);
  });

  it("the default profile answers with the default layout, and can be forced into another", async () => {
    sim = await PimsSimulator.start({ profile: "default" });
    const { projectId } = seedApp();
    const plain = await create(projectId, 0);
    expect(plain.status).toBe(201);
    expect(Object.keys(plain.body.token as object).sort()).toEqual(["expiresAt", "id", "secret"]);
    sim.setTokenLayout("jwt");
    const jwt = await create(projectId, 0);
    expect(jwt.status).toBe(201);
    expect(Object.keys(jwt.body.token as object).sort()).toEqual(["id", "jwt"]);
    expect(sim.tokenLayoutOf(jwt.body.id as string)).toBe("jwt");
  });
});

describe("choosing a layout per account", () => {
  it("the quirky profile goes round robin over every readable layout", async () => {
    sim = await PimsSimulator.start({ profile: "quirky" });
    const { projectId } = seedApp();
    const seen: Array<string | undefined> = [];
    for (let i = 0; i < READABLE_TOKEN_LAYOUT_NAMES.length + 1; i++) {
      const { body } = await create(projectId, 0);
      seen.push(sim.tokenLayoutOf(body.id as string));
    }
    expect(seen).toEqual([...READABLE_TOKEN_LAYOUT_NAMES, READABLE_TOKEN_LAYOUT_NAMES[0]]);
    expect(new Set(seen)).not.toContain("default");
  });

  it("random is reproducible with a seed and never picks an unreadable layout", async () => {
    const draw = async (seed: number): Promise<Array<string | undefined>> => {
      sim = await PimsSimulator.start({ profile: "quirky", tokenLayout: "random", tokenLayoutSeed: seed });
      const { projectId } = seedApp();
      const out: Array<string | undefined> = [];
      for (let i = 0; i < 30; i++) out.push(sim.tokenLayoutOf((await create(projectId, 0)).body.id as string));
      await sim.stop();
      return out;
    };
    const a = await draw(7);
    const b = await draw(7);
    expect(a).toEqual(b);
    expect(new Set(a).size).toBeGreaterThan(3);
    for (const name of a) expect(READABLE_TOKEN_LAYOUT_NAMES).toContain(name);
    sim = await PimsSimulator.start({ profile: "quirky" });
  });

  it("PIMS_SIM_TOKEN_LAYOUT sets the layout when the option is absent", async () => {
    const saved = process.env.PIMS_SIM_TOKEN_LAYOUT;
    process.env.PIMS_SIM_TOKEN_LAYOUT = "ACCESS_TOKEN";
    try {
      sim = await PimsSimulator.start({ profile: "quirky" });
      const { projectId } = seedApp();
      const { body } = await create(projectId, 0);
      expect(sim.tokenLayoutOf(body.id as string)).toBe("ACCESS_TOKEN");
      await sim.stop();
      process.env.PIMS_SIM_TOKEN_LAYOUT = "nonsense";
      await expect(PimsSimulator.start({ profile: "quirky" })).rejects.toThrow(
        "PIMS_SIM_TOKEN_LAYOUT is not a token layout: nonsense",
      );
    } finally {
      if (saved === undefined) delete process.env.PIMS_SIM_TOKEN_LAYOUT;
      else process.env.PIMS_SIM_TOKEN_LAYOUT = saved;
    }
  });
});

describe("unreadable layouts (forcible only)", () => {
  it("twoSecrets: two different secret-looking strings, one of them works; the account is live", async () => {
    sim = await PimsSimulator.start({ profile: "quirky", tokenLayout: "twoSecrets" });
    const { projectId } = seedApp();
    const { status, body } = await create(projectId, 0);
    expect(status).toBe(200);
    const token = body.token as Record<string, unknown>;
    expect(token.token).toMatch(/^pims_sa_[0-9a-f]{40}$/);
    expect(token.secret).toMatch(/^pims_sa_[0-9a-f]{40}$/);
    expect(token.token).not.toBe(token.secret);
    expect(await works(projectId, token.token)).toBe(true);
    expect(await works(projectId, token.secret)).toBe(false);
    expect(sim.serviceAccounts(projectId).map((a) => a.id)).toEqual([body.id]);
    // the decoy is scanned for like a secret
    expect(sim.issuedSecrets()).toEqual(expect.arrayContaining([token.token, token.secret]));
  });

  it("hashOnly: no secret in the answer at all; the account is live and its secret exists", async () => {
    sim = await PimsSimulator.start({ profile: "quirky", tokenLayout: "hashOnly" });
    const { projectId } = seedApp();
    const { body, text } = await create(projectId, 0);
    const token = body.token as Record<string, unknown>;
    expect(token.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const secret = sim.issuedSecrets()[1];
    expect(text).not.toContain(secret);
    expect(await works(projectId, secret)).toBe(true);
    for (const value of Object.values(token)) expect(await works(projectId, value)).toBe(false);
    expect(sim.serviceAccounts(projectId)).toHaveLength(1);
    expect(sim.tokenLayoutOf(body.id as string)).toBe("hashOnly");
  });
});
