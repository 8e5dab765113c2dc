/**
 * The benchmark's self-checks, without its timings (`npm run bench` is not part of `npm test`): P7's fair baseline
 * (bench/naive.ts) declares exactly the outputs and secrets of ServiceAccount's declaration, so a new output of the
 * kind fails here instead of making P7 refuse to run ("P7 could not run"). What the baseline's create stores is
 * compared with pulumi-pims' against the simulator in tests/sim/tooling/benchBaseline.test.ts. P7floor's provider
 * (bench/floor.ts) returns what the baseline's create returns, in the same shapes, without a request.
 */
import { SERVICE_ACCOUNT } from "../../../provider/serviceAccount/kind";
import { loadNaive } from "../../../bench/harness";
import { p7BaselineProblems } from "../../../bench/p7-scale";
import { floorServiceAccountProvider } from "../../../bench/floor";

const naive = loadNaive("http://127.0.0.1:1", "unused");

test("P7's baseline declares the outputs and secrets of ServiceAccount's declaration", () => {
  expect(p7BaselineProblems(naive)).toEqual([]);
  expect([...naive.TYPED_SERVICE_ACCOUNT_OUTPUT_KEYS].sort()).toEqual([...SERVICE_ACCOUNT.outputKeys].sort());
});

test("a drift either way is named: an output or a secret the baseline lacks, or one the kind lacks", () => {
  const declared = naive.TYPED_SERVICE_ACCOUNT_OUTPUT_KEYS.filter((k) => k !== "tokenHeld");
  expect(p7BaselineProblems({ ...naive, TYPED_SERVICE_ACCOUNT_OUTPUT_KEYS: declared })).toEqual([
    "tokenHeld is not declared",
  ]);
  const grown = { outputKeys: [...SERVICE_ACCOUNT.outputKeys, "deliveredTo"], secret: [...SERVICE_ACCOUNT.secret] };
  expect(p7BaselineProblems(naive, grown)).toEqual(["deliveredTo is not declared"]);
  const stale = { ...naive, TYPED_SERVICE_ACCOUNT_OUTPUT_KEYS: [...declared, "tokenHeld", "gone"] };
  expect(p7BaselineProblems(stale)).toEqual(["gone is not an output of the kind"]);
  const others = SERVICE_ACCOUNT.secret.filter((k) => k !== "token"); // previousToken, adoptToken
  expect(others).toContain("previousToken");
  expect(p7BaselineProblems({ ...naive, TYPED_SERVICE_ACCOUNT_SECRETS: ["token"] })).toEqual(
    others.map((k) => `${k} is not secret`),
  );
});

test("the floor's create returns the baseline's outputs, made up in the service's shapes", async () => {
  const inputs = { projectId: "p-1", name: "sa", description: "", grants: ["p-1"], expiresIn: 0 };
  const { id, outs } = await floorServiceAccountProvider.create(inputs);
  const answer = { id, createdAt: "2026-01-01T00:00:00.000Z", createdByUserId: "u-admin" };
  const token = { id: outs.tokenId, expiresAt: "never", secret: outs.token };
  const baseline = naive.naiveServiceAccountOutputs(inputs, { ...answer, token });
  expect(Object.keys(outs).sort()).toEqual(Object.keys(baseline).sort());
  expect({ ...outs, createdAt: answer.createdAt }).toEqual(baseline); // the fingerprint is the token's too
  expect(outs).toMatchObject({ serviceAccountId: id, tokenExpiresAt: "never" });
  expect(id).toMatch(/^sa-[0-9a-f]{12}$/);
  expect(outs.token).toMatch(/^pims_sa_[0-9a-f]{40}$/);
});
