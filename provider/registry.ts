/**
 * The per-kind provider registry both hosts share, derived from the one list of kinds (./kinds): the dynamic host's
 * entry (./index, `newProvider`) and the plugin (provider/plugin/lifecycle.ts) make each kind's provider here.
 */
import type { KindInstance, KindProvider } from "./kindDeclaration";
import { isResourceKind, KIND_BY_NAME } from "./kinds";

/** A new provider object of a kind with its declared capabilities; an unknown kind is refused, naming it. */
export function instanceOf(kind: string): KindInstance {
  if (!isResourceKind(kind))
    throw new Error(
      `pulumi-pims: unknown resource kind ${JSON.stringify(kind)} (state written by a newer pulumi-pims?)`,
    );
  return KIND_BY_NAME[kind].instance();
}

/** The provider object of a kind, as both hosts run it (the plugin configures it with `configureWith`). */
export function providerOf(kind: string): KindProvider {
  return instanceOf(kind).provider;
}
