/** Invoice amounts: ISO 4217 minor-unit digits and the conversion to major units (no network). */
import { currencyDigits, toMajorUnits } from "../../../sdk/nodejs/functions";

describe("currency arithmetic", () => {
  it("currency helpers", () => {
    expect([
      currencyDigits("jpy"),
      currencyDigits("BHD"),
      currencyDigits("EUR"),
      currencyDigits("CLF"),
      currencyDigits(""),
    ]).toEqual([0, 3, 2, 4, 2]);
    expect(toMajorUnits(10, "usd")).toBe(0.1);
    expect(toMajorUnits(-250, "EUR")).toBe(-2.5);
  });

  it("uses ISO 4217 digits, not the display digits Intl reports", () => {
    // Intl shows HUF, IDR, COP with 0 digits; ISO 4217 gives them 2 minor units.
    expect(["HUF", "IDR", "COP", "huf "].map(currencyDigits)).toEqual([2, 2, 2, 2]);
    expect(toMajorUnits(12345, "HUF")).toBe(123.45);
    expect(toMajorUnits(1234, "KWD")).toBe(1.234);
    expect(toMajorUnits(1, "CLF")).toBe(0.0001);
  });

  it("rounds away binary floating-point noise at the currency's digits", () => {
    expect(toMajorUnits(1999, "usd")).toBe(19.99);
    expect(toMajorUnits(29, "usd")).toBe(0.29);
    expect(toMajorUnits(500, "JPY")).toBe(500);
  });
});
