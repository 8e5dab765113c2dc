/**
 * VolumeSize: the size of an existing volume, set with PATCH /v2/projects/{project_id}/volumes/{volume_id}/resize.
 *
 * The service has no operation to create, read or delete a volume; this resource manages only its size:
 * - create and update resize the volume to `sizeGb` (an absolute size, so repeating a call is harmless),
 * - a volume only grows: a smaller `sizeGb` is rejected at preview,
 * - above 1024 GB the service decides (only protected projects may); its refusal is shown as is,
 * - `read` (refresh) returns the state unchanged; import is refused, naming what to declare instead,
 * - `delete` leaves the volume at its size and says so in one warning line.
 */
import type * as pulumi from "@pulumi/pulumi";
import { isPimsError, warning } from "./client";
import { quote } from "./client/values";
import { Failures, isUnknown } from "./checks";
import { PimsProviderBase } from "./providerBase";
import { changedKeys, clean } from "./diff";
import { declareKind, INT, STR } from "./kindDeclaration";

// ---- types ----------------------------------------------------------------------------------------------

/** What the program declares (the SDK's `VolumeSizeArgs` are these, each a `pulumi.Input`). */
export interface VolumeSizeInputs {
  /** Id of the project that owns the volume, e.g. `p-1a2b3c4d`. Changing it replaces the resource. */
  projectId: string;
  /** Id of an existing volume in that project, e.g. `default-us-east-1`. Changing it replaces the resource. */
  volumeId: string;
  /**
   * Size of the volume in GB: an integer, at least 50. It can only grow: a value smaller than the current
   * one fails at preview. Above 1024 GB the service allows it only for a protected project (otherwise it
   * refuses the update with its own message).
   */
  sizeGb: number;
}

/**
 * What the state holds (and what `diff` receives as `olds`); the SDK class's output properties are these:
 * the volume's project and id, and the size it was last resized to, in GB.
 */
export type VolumeSizeOutputs = VolumeSizeInputs;

/** Every output key, once: the annotation makes the compiler reject a missing or unknown key. */
const OUTPUT_KEY_SET: Record<keyof VolumeSizeOutputs, true> = { projectId: true, volumeId: true, sizeGb: true };
/** The output keys, which the SDK class seeds on the resource. */
export const VOLUME_SIZE_OUTPUT_KEYS = Object.keys(OUTPUT_KEY_SET);

/** Limits of `newSizeGb` in PATCH /v2/projects/{project_id}/volumes/{volume_id}/resize. */
export const VOLUME_MIN_GB = 50;
export const VOLUME_UNPROTECTED_MAX_GB = 1024;

/** Inputs whose change replaces the resource (it then manages another volume). */
const REPLACE_ON = ["projectId", "volumeId"] as const;

export const volumeSizeId = (projectId: string, volumeId: string): string => `${projectId}/${volumeId}`;

function outputs(o: VolumeSizeInputs): VolumeSizeOutputs {
  return clean({ projectId: o.projectId, volumeId: o.volumeId, sizeGb: o.sizeGb });
}

/** The one line `delete` writes (stderr of the provider host: the engine shows it as a warning diagnostic). */
export function volumeDeleteWarning(projectId: string, volumeId: string, sizeGb: number | undefined): string {
  const size = typeof sizeGb === "number" ? ` at ${sizeGb} GB` : " at its current size";
  return (
    `pulumi-pims: volume ${volumeId} in project ${projectId} was removed from the stack and stays${size}: ` +
    `volumes cannot shrink and the service has no delete operation for volumes.`
  );
}

// ---- provider -------------------------------------------------------------------------------------------

export class VolumeSizeProvider
  extends PimsProviderBase
  implements pulumi.dynamic.ResourceProvider<VolumeSizeInputs, VolumeSizeOutputs>
{
  // ---- check ----
  /**
   * Validates the inputs at preview, with no HTTP call; values unknown at preview are not validated.
   * A smaller size than before (same volume) fails here: volumes only grow.
   */
  async check(olds: VolumeSizeInputs, news: VolumeSizeInputs): Promise<pulumi.dynamic.CheckResult<VolumeSizeInputs>> {
    const failures = new Failures();
    failures.requiredId("projectId", news?.projectId);
    failures.requiredId("volumeId", news?.volumeId);
    const size: unknown = news?.sizeGb;
    if (size === undefined || size === null) {
      failures.add("sizeGb", "sizeGb is required");
    } else if (!isUnknown(size)) {
      if (typeof size !== "number" || !Number.isInteger(size)) {
        failures.add("sizeGb", `sizeGb must be an integer (got ${quote(size)})`);
      } else if (size < VOLUME_MIN_GB) {
        failures.add("sizeGb", `sizeGb must be at least ${VOLUME_MIN_GB} (got ${size})`);
      } else {
        const sameVolume =
          olds !== undefined &&
          olds !== null &&
          typeof olds.projectId === "string" &&
          typeof olds.volumeId === "string" &&
          olds.projectId === news.projectId &&
          olds.volumeId === news.volumeId;
        const before: unknown = olds?.sizeGb;
        if (sameVolume && typeof before === "number" && !isUnknown(before) && size < before) {
          failures.add("sizeGb", `sizeGb cannot shrink from ${before} to ${size}: volumes only grow`);
        }
      }
    }
    return { inputs: news, failures: failures.list };
  }

  // ---- diff ----
  /** Another project or volume replaces the resource; a new size is an update (a resize). */
  async diff(_id: string, olds: VolumeSizeOutputs, news: VolumeSizeInputs): Promise<pulumi.dynamic.DiffResult> {
    const replaces = changedKeys(olds, news, REPLACE_ON);
    if (replaces.length > 0) return { changes: true, replaces: [...replaces], deleteBeforeReplace: false };
    return { changes: isUnknown(news.sizeGb) || news.sizeGb !== olds.sizeGb };
  }

  // ---- create ----
  /** Resizes the existing volume to `sizeGb`; the resource id is `${projectId}/${volumeId}`. */
  async create(inputs: VolumeSizeInputs): Promise<pulumi.dynamic.CreateResult<VolumeSizeOutputs>> {
    await this.resize(inputs);
    return { id: volumeSizeId(inputs.projectId, inputs.volumeId), outs: outputs(inputs) };
  }

  // ---- read ----
  /** No read endpoint: refresh returns the state unchanged. Import (no state to start from) is refused. */
  async read(id: string, props?: VolumeSizeOutputs): Promise<pulumi.dynamic.ReadResult<VolumeSizeOutputs>> {
    if (!props || typeof props.projectId !== "string" || typeof props.volumeId !== "string") {
      throw new Error(
        `pulumi-pims: volume size ${id} cannot be imported: the service has no operation to read a volume. ` +
          "Declare a VolumeSize with the volume's projectId, volumeId and its current (or a larger) sizeGb " +
          "instead: creating it resizes the existing volume.",
      );
    }
    return { id, props };
  }

  // ---- update ----
  /** Resizes to the new `sizeGb` (the growth rule was checked at preview; the service enforces it too). */
  async update(
    _id: string,
    _olds: VolumeSizeOutputs,
    news: VolumeSizeInputs,
  ): Promise<pulumi.dynamic.UpdateResult<VolumeSizeOutputs>> {
    await this.resize(news);
    return { outs: outputs(news) };
  }

  // ---- delete ----
  /** Leaves the volume at its size (no HTTP call) and says so in one warning line. */
  async delete(id: string, props: VolumeSizeOutputs): Promise<void> {
    const [p, v] = id.split("/");
    warning(volumeDeleteWarning(props?.projectId ?? p, props?.volumeId ?? v, props?.sizeGb));
  }

  /**
   * PATCH /v2/projects/{project_id}/volumes/{volume_id}/resize. A 403 above 1024 GB is the service's rule for
   * unprotected projects: say so if it did not.
   */
  private async resize(v: VolumeSizeInputs): Promise<void> {
    try {
      await this.client().resizeVolume(v.projectId, v.volumeId, v.sizeGb);
    } catch (e) {
      if (isPimsError(e) && e.status === 403 && v.sizeGb > VOLUME_UNPROTECTED_MAX_GB && !/protected/i.test(e.message)) {
        throw new Error(
          `${e.message} (sizes above ${VOLUME_UNPROTECTED_MAX_GB} GB are allowed only in a protected project)`,
          { cause: e },
        );
      }
      throw e;
    }
  }
}

// ---- the kind ------------------------------------------------------------------------------------------

/** VolumeSize, as both hosts, the schema and the SDK read it (./kinds lists it). */
export const VOLUME_SIZE = declareKind<"VolumeSize", VolumeSizeInputs, VolumeSizeOutputs, VolumeSizeProvider>({
  kind: "VolumeSize",
  provider: VolumeSizeProvider,
  example: { scenario: "environments", title: "One program, one stack per environment" },
  tsdoc: "VolumeSizeInputs",
  properties: { projectId: STR, volumeId: STR, sizeGb: INT },
  inputs: { projectId: true, volumeId: true, sizeGb: true },
  requiredInputs: ["projectId", "volumeId", "sizeGb"],
  required: ["projectId", "volumeId", "sizeGb"],
  secret: [],
  replaceOnChanges: ["projectId", "volumeId"],
  computedOnCreate: [],
  computedOnUpdate: [],
});
