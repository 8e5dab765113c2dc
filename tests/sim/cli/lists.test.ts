/**
 * `pims api-keys` and `pims invoices` against the simulator: tables, masking, JSON.
 */
import { lines, useCliSuite } from "../../kit/sim/cli";

const { pims, seedApp, sim } = useCliSuite();

// ---- api-keys and invoices ---------------------------------------------------------------------------------

describe("pims api-keys", () => {
  const fullKey = "pims_live_0123456789abcdefghij_wxyz";

  it("prints an aligned table with masked values", async () => {
    const { p } = seedApp();
    sim.addApiKey(p, { name: "deploy", apiKey: fullKey, expiresAt: "2030-01-01T00:00:00Z", principalId: "sa-1" });
    sim.addApiKey(p, { name: "forever-key", apiKey: "pims_live_zzzzzzzzzzzzzzzzzzzz_0000", expiresAt: "never" });
    const r = await pims(["api-keys", p]);
    expect(r.code).toBe(0);
    const [header, first, second] = lines(r.stdout);
    expect(header).toMatch(/^NAME\s+ID\s+KEY\s+STATUS\s+SOURCE\s+EXPIRES\s+PRINCIPAL$/);
    expect(first).toMatch(/^deploy\s+key-\w+\s+pims…wxyz\s+active\s+user\s+2030-01-01T00:00:00Z\s+sa-1$/);
    expect(second).toMatch(/^forever-key\s+.*\bnever\s+-$/);
    expect(header.indexOf("KEY")).toBe(first.indexOf("pims…"));
    expect(r.stdout).not.toContain(fullKey);
  });

  it("--json masks values unless --show-secrets", async () => {
    const { p } = seedApp();
    sim.addApiKey(p, { name: "deploy", apiKey: fullKey });
    const masked = await pims(["api-keys", p, "--json"]);
    expect(masked.code).toBe(0);
    const body = JSON.parse(masked.stdout) as { keys: Array<{ name: string; apiKey: string; neverExpires: boolean }> };
    expect(body.keys).toEqual([expect.objectContaining({ name: "deploy", apiKey: "pims…wxyz", neverExpires: true })]);
    expect(masked.stdout).not.toContain(fullKey);

    const shown = await pims(["api-keys", p, "--json", "--show-secrets"]);
    expect(shown.code).toBe(0);
    expect((JSON.parse(shown.stdout) as { keys: Array<{ apiKey: string }> }).keys[0].apiKey).toBe(fullKey);
  });

  it("says so when there are no keys", async () => {
    const { p } = seedApp();
    const r = await pims(["api-keys", p]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`No API keys in project ${p}.`);
  });
});

describe("pims invoices", () => {
  it("prints amounts in major units with the currency, right-aligned", async () => {
    const { p } = seedApp();
    sim.addInvoice(p, { id: "in_usd", amountDue: 1234, currency: "usd", paymentStatus: "open" });
    sim.addInvoice(p, { id: "in_jpy", amountDue: 500, currency: "jpy" });
    sim.addInvoice(p, { id: "in_kwd", amountDue: 1234, currency: "KWD" });
    const r = await pims(["invoices", p]);
    expect(r.code).toBe(0);
    const rows = lines(r.stdout);
    expect(rows[0]).toMatch(/^ID\s+CREATED\s+AMOUNT\s+STATUS\s+ACCOUNT\s+COUNTRY\s+PDF$/);
    expect(rows[1]).toMatch(
      /^in_usd\s.*\s12\.34 USD\s+open\s+Demo Account\s+US\s+https:\/\/invoices\.example\.com\/in_usd\.pdf$/,
    );
    expect(rows[2]).toContain(" 500 JPY ");
    expect(rows[3]).toContain(" 1.234 KWD ");
    // Right-aligned: the amounts end in the same column as the header AMOUNT.
    const end = rows[0].indexOf("AMOUNT") + "AMOUNT".length;
    expect([
      rows[1].indexOf("12.34 USD") + 9,
      rows[2].indexOf("500 JPY") + 7,
      rows[3].indexOf("1.234 KWD") + 9,
    ]).toEqual([end, end, end]);
  });

  it("columns line up whatever createdAt is: not RFC 3339, wide or combining characters, control chars", async () => {
    const { p } = seedApp();
    sim.addInvoice(p, { id: "in_epoch", createdAt: "1714564800", amountDue: 1234, currency: "usd" });
    // é as e + combining accent
    sim.addInvoice(p, { id: "in_fr", createdAt: "1 fe\u0301vr. 2024", amountDue: 5, currency: "eur" });
    sim.addInvoice(p, { id: "in_ja", createdAt: "2024年5月1日", amountDue: 123456, currency: "jpy" });
    sim.addInvoice(p, { id: "in_nl", createdAt: "", accountName: "Acme\nCorp\tLtd", amountDue: 1, currency: "kwd" });
    const r = await pims(["invoices", p]);
    expect(r.code).toBe(0);
    const rows = lines(r.stdout);
    expect(rows).toHaveLength(5); // a newline in a value does not break its row
    expect(rows[4]).toContain("Acme\\nCorp\\tLtd");
    // Terminal columns, measured independently: composed characters count once, CJK ideographs twice.
    const columns = (s: string): number =>
      Array.from(s.normalize("NFC")).reduce((w, ch) => w + (/[\u3000-\u9fff]/u.test(ch) ? 2 : 1), 0);
    const startOf = (row: string, text: string): number => columns(row.slice(0, row.indexOf(text)));
    const amountEnd = startOf(rows[0], "AMOUNT") + "AMOUNT".length;
    const amounts = ["12.34 USD", "0.05 EUR", "123456 JPY", "0.001 KWD"];
    expect(amounts.map((a, i) => startOf(rows[i + 1], a) + a.length)).toEqual([
      amountEnd,
      amountEnd,
      amountEnd,
      amountEnd,
    ]);
    const statusAt = startOf(rows[0], "STATUS");
    expect(rows.slice(1).map((row) => startOf(row, "paid"))).toEqual([statusAt, statusAt, statusAt, statusAt]);
  });

  it("--json gives the invoices with amountDueMajor", async () => {
    const { p } = seedApp();
    sim.addInvoice(p, { id: "in_eur", amountDue: 1999, currency: "eur" });
    const r = await pims(["invoices", p, "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      invoices: [
        expect.objectContaining({
          id: "in_eur",
          amountDue: 1999,
          amountDueMajor: 19.99,
          currency: "eur",
          currencyDigits: 2,
        }),
      ],
    });
  });
});
