import * as pulumi from "@pulumi/pulumi";
import { VOLUME_SIZE_OUTPUT_KEYS, type VolumeSizeInputs, type VolumeSizeOutputs } from "../../provider/volumeSize";
import { resourceProps, type Inputs, type OutputProps } from "./inputs";
import { providerShim } from "./shim";

/** Arguments of {@link VolumeSize}: the inputs documented on `VolumeSizeInputs`, each a `pulumi.Input`. */
export interface VolumeSizeArgs extends Inputs<VolumeSizeInputs> {}

/** The outputs of {@link VolumeSize} (documented on `VolumeSizeInputs`), merged into the class. */
export interface VolumeSize extends OutputProps<VolumeSizeOutputs> {}

/**
 * The size of an existing PIMS volume, set with `PATCH /v2/projects/{project_id}/volumes/{volume_id}/resize`.
 *
 * The service has no operation to create, read or delete a volume: this resource manages only its size.
 *
 * Behaviour and limits:
 * - Creating the resource resizes the existing volume to `sizeGb`; changing `sizeGb` resizes it again.
 * - `sizeGb` must be an integer of at least 50. Volumes only grow: a smaller `sizeGb` than before fails at preview
 *   (`sizeGb cannot shrink from 100 to 80: volumes only grow`), with no call to the service.
 * - Above 1024 GB only protected projects may grow further; the service decides, and its refusal is shown.
 * - Changing `projectId` or `volumeId` replaces the resource (it then manages another volume; the old volume keeps
 *   its size).
 * - **Delete** leaves the volume at its size (volumes cannot shrink, and there is no delete operation): it only
 *   removes the resource from the stack, with a one-line message (shown under Diagnostics) that says so. No call
 *   to the service.
 * - **Refresh** cannot see the volume's size (no read operation): it leaves the state unchanged. A size changed
 *   outside Pulumi shows up only when the next resize is refused.
 * - To manage the size of a volume that already exists, declare a `VolumeSize` with its current (or a larger)
 *   size: creating it resizes the volume, which is harmless at the same size.
 *
 * Credentials: stack config `pims:token` (secret) and `pims:baseUrl`, or `PIMS_TOKEN` / `PIMS_BASE_URL`.
 *
 * @remarks
 * `pulumi import` and the `import` resource option do not work for dynamic resources: declare the volume's size
 * as above.
 *
 * @example
 * ```ts
 * import * as pims from "pulumi-pims";
 *
 * const data = new pims.VolumeSize("data", { projectId: "p-1a2b3c4d", volumeId: "default-us-east-1", sizeGb: 200 });
 * ```
 */
export class VolumeSize extends pulumi.dynamic.Resource {
  /**
   * @param name The unique name of this resource in the Pulumi program.
   * @param args Which volume, and its size.
   * @param opts Resource options.
   */
  constructor(name: string, args: VolumeSizeArgs, opts?: pulumi.CustomResourceOptions) {
    super(providerShim("VolumeSize"), name, resourceProps(args, VOLUME_SIZE_OUTPUT_KEYS), opts, "pims", "VolumeSize");
  }
}
