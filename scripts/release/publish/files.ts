/**
 * Files published to a place that serves them back by name (the download address; a Maven repository, which only
 * Maven's deploy writes, is read through one too): a `Store` reads and writes one name, and the steps here compare
 * before they write. A file is the same when its bytes are; a
 * signature (`.asc`) when it verifies against the local file with the release key (a new signature of the same file
 * has other bytes).
 */
import * as fs from "node:fs";
import { sha256 } from "../common";
import { differs, MISSING, SAME, type Found, type Step } from "./plan";
import { signatureOf, verifies, type SigningKey } from "./sign";

/** A place files are published to by name. */
export interface Store {
  /** The registry's name in messages. */
  target: string;
  /** Where `name` is (a URL). */
  where(name: string): string;
  /** Its bytes there, or undefined when it is not there. */
  get(name: string): Promise<Buffer | undefined>;
  /** Puts it there. */
  put(name: string, bytes: Buffer): Promise<void>;
}

/** What a store holds of `name` compared with `local` bytes. */
async function compare(store: Store, name: string, local: Buffer): Promise<Found> {
  const there = await store.get(name);
  if (there === undefined) return MISSING;
  if (there.equals(local)) return SAME;
  return differs(`${name} there has SHA-256 ${sha256(there)}, dist/ has ${sha256(local)}`);
}

/** Publishes the file at `file` as `name`. */
export function fileStep(store: Store, name: string, file: string): Step {
  return {
    target: store.target,
    name,
    where: store.where(name),
    check: () => compare(store, name, fs.readFileSync(file)),
    publish: () => store.put(name, fs.readFileSync(file)),
  };
}

/** Publishes `<name>.asc`, the release key's signature of the local `file` (made on publishing, when missing). */
export function signatureStep(store: Store, name: string, file: string, key: SigningKey): Step {
  const asc = `${name}.asc`;
  return {
    target: store.target,
    name: asc,
    where: store.where(asc),
    check: async () => {
      const there = await store.get(asc);
      if (there === undefined) return MISSING;
      return verifies(there.toString("utf8"), file, key)
        ? SAME
        : differs(`${asc} there is not a valid signature of dist/'s ${name} by the key ${key.fingerprint}`);
    },
    publish: () => store.put(asc, fs.readFileSync(signatureOf(file, key))),
  };
}
