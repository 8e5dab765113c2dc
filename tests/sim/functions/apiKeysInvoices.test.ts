/**
 * getApiKeys and getInvoices (and their Output forms) against the simulator: what they return, retries.
 */
import * as pulumi from "@pulumi/pulumi";
import { getApiKeys, getApiKeysOutput, getInvoices, getInvoicesOutput } from "../../../sdk/nodejs/functions";
import { useFunctionsSuite } from "../../kit/sim/functions";
import { outputValue } from "../../kit/provider/mocks";

const { opts, sim } = useFunctionsSuite();

// ---- API keys ----------------------------------------------------------------------------------------------

describe("getApiKeys", () => {
  it("returns the keys in the service's order, never last, with expiry as Date and epoch ms", async () => {
    const p = sim.addProject().id;
    sim.addApiKey(p, { name: "forever", expiresAt: "never", apiKey: "pims_live_forever_0000000001" });
    sim.addApiKey(p, { name: "late", expiresAt: "2031-01-01T00:00:00Z" });
    sim.addApiKey(p, { name: "soon", expiresAt: "2030-01-01T00:00:00Z", principalId: "sa-1" });

    const { keys } = await getApiKeys({ projectId: p }, opts());

    expect(keys.map((k) => k.name)).toEqual(["soon", "late", "forever"]);
    expect(keys[0]).toMatchObject({
      expiresAt: "2030-01-01T00:00:00Z",
      neverExpires: false,
      expiresAtEpochMs: Date.UTC(2030, 0, 1),
      principalId: "sa-1",
    });
    expect(keys[0].expiresAtDate?.toISOString()).toBe("2030-01-01T00:00:00.000Z");
    expect(keys[2]).toMatchObject({
      expiresAt: "never",
      neverExpires: true,
      expiresAtEpochMs: null,
      expiresAtDate: null,
      apiKey: "pims_live_forever_0000000001",
    });
    expect(sim.countRequests({ method: "GET", path: `/v2/projects/${p}/api-keys` })).toBe(1);
  });

  it("reads epoch-number expiries (seconds or milliseconds, number or digits) like `pims tokens`", async () => {
    const p = sim.addProject().id;
    const at = Date.UTC(2030, 0, 1);
    // The service's documentation shows RFC 3339; epoch numbers have been seen from clients in the wild.
    sim.addApiKey(p, { name: "seconds", expiresAt: (at / 1000) as unknown as string });
    sim.addApiKey(p, { name: "millis", expiresAt: String(at + 1000) });
    sim.addApiKey(p, { name: "zero", expiresAt: 0 as unknown as string });

    const { keys } = await getApiKeys({ projectId: p }, opts());
    const byName = Object.fromEntries(keys.map((k) => [k.name, k]));
    expect(byName.seconds).toMatchObject({ expiresAt: String(at / 1000), neverExpires: false, expiresAtEpochMs: at });
    expect(byName.seconds.expiresAtDate?.toISOString()).toBe("2030-01-01T00:00:00.000Z");
    expect(byName.millis).toMatchObject({ neverExpires: false, expiresAtEpochMs: at + 1000 });
    // 0 means "never expires", as expiresIn 0 does.
    expect(byName.zero).toMatchObject({ neverExpires: true, expiresAtEpochMs: null, expiresAtDate: null });
  });

  it("returns an empty list for a project without keys", async () => {
    const p = sim.addProject().id;
    expect(await getApiKeys({ projectId: p }, opts())).toEqual({ keys: [] });
  });

  it("the Output form resolves to the same keys (without Dates) and is secret", async () => {
    const p = sim.addProject().id;
    sim.addApiKey(p, { name: "k1", expiresAt: "2030-01-01T00:00:00Z", apiKey: "pims_live_secret_value_000001" });
    const out = getApiKeysOutput({ projectId: pulumi.output(p) }, opts());

    expect(await pulumi.isSecret(out)).toBe(true);
    const value = await outputValue(out);
    expect(value.keys).toHaveLength(1);
    expect(value.keys[0]).toMatchObject({
      name: "k1",
      apiKey: "pims_live_secret_value_000001",
      expiresAtEpochMs: Date.UTC(2030, 0, 1),
    });
    expect("expiresAtDate" in value.keys[0]).toBe(false);
    // Derived values stay secret.
    expect(await pulumi.isSecret(out.apply((r) => r.keys.map((k) => k.name)))).toBe(true);
  });
});

// ---- invoices ----------------------------------------------------------------------------------------------

describe("getInvoices", () => {
  it("adds the amount in major units from the currency's ISO 4217 digits", async () => {
    const p = sim.addProject().id;
    sim.addInvoice(p, { id: "in_usd", amountDue: 1999, currency: "usd" });
    sim.addInvoice(p, { id: "in_jpy", amountDue: 500, currency: "JPY" });
    sim.addInvoice(p, { id: "in_kwd", amountDue: 1234, currency: "kwd" });
    sim.addInvoice(p, { id: "in_huf", amountDue: 12345, currency: "HUF" });
    sim.addInvoice(p, { id: "in_odd", amountDue: 1050, currency: "not-a-currency" });

    const { invoices } = await getInvoices({ projectId: p }, opts());

    const major = Object.fromEntries(invoices.map((i) => [i.id, [i.amountDueMajor, i.currencyDigits]]));
    expect(major).toEqual({
      in_usd: [19.99, 2],
      in_jpy: [500, 0],
      in_kwd: [1.234, 3],
      in_huf: [123.45, 2], // ISO 4217 says 2, although Intl displays HUF with 0 digits
      in_odd: [10.5, 2],
    });
    expect(invoices[0]).toMatchObject({
      amountDue: 1999,
      currency: "usd",
      paymentStatus: "paid",
      fileUrl: "https://invoices.example.com/in_usd.pdf",
    });
  });

  it("the Output form resolves and is not secret", async () => {
    const p = sim.addProject().id;
    sim.addInvoice(p, { id: "in_1", amountDue: 100, currency: "eur" });
    const out = getInvoicesOutput({ projectId: p }, opts());
    expect(await pulumi.isSecret(out)).toBe(false);
    expect((await outputValue(out)).invoices.map((i) => [i.id, i.amountDueMajor])).toEqual([["in_1", 1]]);
  });

  it("retries a 503 and reports each retry through onRetry", async () => {
    const p = sim.addProject().id;
    sim.addInvoice(p, { id: "in_1" });
    sim.addFault({ method: "GET", path: `/v2/projects/${p}/invoices`, kind: "status", status: 503, times: 2 });
    const retries: string[] = [];
    const { invoices } = await getInvoices({ projectId: p }, opts({ onRetry: (r) => retries.push(r.reason) }));
    expect(invoices).toHaveLength(1);
    expect(retries).toEqual(["HTTP 503", "HTTP 503"]);
    expect(sim.countRequests({ path: `/v2/projects/${p}/invoices` })).toBe(3);
  });
});
