/** The runner of each language (./index's Runner), for the tables that pick a row's runner by its language. */
import { go } from "./go";
import type { Language, Runner } from "./index";
import { java } from "./java";
import { python } from "./python";
import { typescript } from "./typescript";
import { yaml } from "./yaml";

export const RUNNERS: Record<Language, Runner> = { typescript, yaml, python, go, java };
