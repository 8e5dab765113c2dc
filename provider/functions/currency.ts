/** Currency arithmetic for invoices: amounts arrive in the smallest currency unit. */

/**
 * ISO 4217 minor-unit digits of the currencies that do not use 2. `Intl.NumberFormat` is not used for this:
 * it reports CLDR display digits, which differ from ISO 4217 for several currencies (e.g. HUF, IDR, COP, PKR
 * display 0 digits but have 2 minor units; IQD has 3), and would misplace the decimal point by 100×.
 */
// Grouped by digit count, one line per group: kept as written.
// prettier-ignore
const ISO_4217_DIGITS: Readonly<Record<string, number>> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0, VND: 0,
  VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  CLF: 4, UYW: 4,
};

/**
 * Number of minor-unit digits of a currency (ISO 4217): 0 for JPY, KRW, …; 3 for BHD, KWD, …; 4 for CLF, UYW;
 * 2 for every other code, unknown or malformed ones included. Case-insensitive.
 *
 * @example
 * ```ts
 * currencyDigits("jpy"); // 0
 * currencyDigits("EUR"); // 2
 * ```
 */
export function currencyDigits(currency: string): number {
  return ISO_4217_DIGITS[currency.trim().toUpperCase()] ?? 2;
}

/**
 * Converts an amount in the smallest currency unit to major units, e.g. `toMajorUnits(1234, "eur") === 12.34`.
 *
 * @example
 * ```ts
 * toMajorUnits(500, "JPY"); // 500
 * toMajorUnits(1500, "KWD"); // 1.5
 * ```
 */
export function toMajorUnits(amount: number, currency: string): number {
  const digits = currencyDigits(currency);
  return Number((amount / 10 ** digits).toFixed(digits));
}
