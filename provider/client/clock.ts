/**
 * The service's clock, as its `Date` response headers show it: key creation times (`createdAt` in
 * GET /v2/projects/{project_id}/api-keys) are the service's clock, so "created since this create started" is decided
 * on that clock, not ours. Every client measures it on each answer (errors too) through this transport wrapper.
 */
import axios, { type AxiosAdapter, type AxiosResponseHeaders, type RawAxiosResponseHeaders } from "axios";

/** The last difference seen between the service's clock and ours (ms; positive when the service is ahead). */
export interface ServiceClock {
  skewMs(): number | undefined;
}

/** Wraps `transport` so that each answer's `Date` header updates the returned clock. */
export function measuringServiceClock(transport: AxiosAdapter): { adapter: AxiosAdapter; clock: ServiceClock } {
  let skew: number | undefined;
  const record = (headers: RawAxiosResponseHeaders | AxiosResponseHeaders | undefined): void => {
    const raw: unknown = headers?.date;
    const t = typeof raw === "string" ? Date.parse(raw) : NaN;
    if (!Number.isNaN(t)) skew = t - Date.now();
  };
  const adapter: AxiosAdapter = async (config) => {
    try {
      const res = await transport(config);
      record(res.headers);
      return res;
    } catch (e) {
      if (axios.isAxiosError(e)) record(e.response?.headers);
      throw e;
    }
  };
  return { adapter, clock: { skewMs: () => skew } };
}

/** A `Date` header has whole seconds: a measured skew under this is its rounding, not a clock that is off. */
const SKEW_RESOLUTION_MS = 2_000;

/** Now on the service's clock: ours plus the measured skew, when it is more than the header's rounding. */
export function serviceNowMs(clock: ServiceClock, nowMs: number = Date.now()): number {
  const skew = clock.skewMs();
  return skew !== undefined && Math.abs(skew) >= SKEW_RESOLUTION_MS ? nowMs + skew : nowMs;
}
