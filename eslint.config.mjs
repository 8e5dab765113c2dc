// House style, checked by `npm run lint` (and CI): typescript-eslint's recommended type-checked rules over every
// TypeScript file of the repository; formatting is Prettier's job (.prettierrc.json).
import * as fs from "node:fs";
import js from "@eslint/js";
import tseslint from "typescript-eslint";

// The SDK's resource classes, one per kind (provider/kinds.ts): the files of sdk/nodejs/ that pass a kind's shim to
// the dynamic Resource. Found, not listed, so a new kind's class needs no line here (tests/rules/kinds.test.ts checks
// that every kind's class is among them).
const SDK = "sdk/nodejs";
export const RESOURCE_CLASS_FILES = fs
  .readdirSync(`${import.meta.dirname}/${SDK}`)
  .filter(
    (f) =>
      f.endsWith(".ts") &&
      /super\(\s*providerShim\(/.test(fs.readFileSync(`${import.meta.dirname}/${SDK}/${f}`, "utf8")),
  )
  .map((f) => `${SDK}/${f}`);

export default tseslint.config(
  { ignores: ["bin/", "docs/api/", "node_modules/", "examples/*/*/node_modules/", "coverage/", "**/*.js", "**/*.mjs"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // `_`-prefixed names are the convention for a parameter a signature requires but the body does not use.
      // The dynamic-provider interface is Promise-based: check/diff/read return promises without awaiting anything.
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
    },
  },
  {
    // The resource classes' structural pattern (sdk/nodejs/inputs.ts): `interface XArgs extends Inputs<XInputs> {}` keeps the
    // name in docs and errors, and `interface X extends OutputProps<XOutputs> {}` merged with `class X` types the
    // outputs the Resource constructor creates from the props given to super.
    files: RESOURCE_CLASS_FILES,
    rules: {
      "@typescript-eslint/no-empty-object-type": "off",
      "@typescript-eslint/no-unsafe-declaration-merging": "off",
    },
  },
  {
    // Hand-made lines (strings and comments, which Prettier does not wrap) stay within Prettier's printWidth in the
    // shipped code. sdk/nodejs/shim.ts is left out: the shim's body is serialized into every resource's state, so its text
    // (one long error message included) must not change, or every resource would be replaced.
    files: ["provider/**/*.ts", "sdk/**/*.ts", "cli/**/*.ts"],
    ignores: ["sdk/nodejs/shim.ts"],
    rules: { "max-len": ["error", { code: 120, ignoreUrls: true }] },
  },
  {
    // The same limit for the tests and the tooling. A regular expression literal cannot be split (an expectation that
    // matches a whole error message is one long literal), so lines holding one are exempt. tests/fixtures/ is left out,
    // as Prettier leaves it out (.prettierignore): the compatibility fixtures and the scripts that make them.
    files: ["tests/**/*.ts", "bench/**/*.ts", "scripts/**/*.ts", "simulator/**/*.ts", "examples/**/*.ts"],
    ignores: ["tests/fixtures/**"],
    rules: { "max-len": ["error", { code: 120, ignoreUrls: true, ignoreRegExpLiterals: true }] },
  },
  {
    // Tests and tooling parse JSON from processes and HTTP bodies and reach into jest mocks:
    // `any` flows there by design.
    files: ["tests/**/*.ts", "bench/**/*.ts", "scripts/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/unbound-method": "off",
      // Benchmarks and tests load the compiled package (bin/) at run time, after a build, as the engine does.
      "@typescript-eslint/no-require-imports": "off",
    },
  },
);
