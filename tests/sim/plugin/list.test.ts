/**
 * The provider protocol's `List` of the plugin (what `pulumi do pims:ServiceAccount list` calls), against the
 * simulator: ServiceAccount lists a project's accounts from its API-key listing, one result per account, each id one
 * that the plugin's import takes as is, named as the account; paging as the protocol asks (page size, a limit over
 * the whole enumeration, continuations that survive accounts made or deleted between pages, refused for another
 * query); `computed` for an unknown project, with no request; the service's message for a project it refuses; Project
 * answers none; no token byte in any answer. Without the engine: tests/engine/plugin/doList.test.ts runs the CLI.
 */
import type * as grpc from "@grpc/grpc-js";
import { UNKNOWN } from "../../../provider/checks";
import { parseImportId } from "../../../provider/serviceAccount/adopt";
import { jsonOf, secretOf, usePluginSuite, type ListAnswer } from "../../kit/provider/plugin";
import { testClient } from "../../kit/sim/client";
import { rejectionOf } from "../../kit/rejection";
import { consoleAccount, liveIds, writesOf } from "../../kit/sim/simulator";

const suite = usePluginSuite();

let project: string; // 25 accounts
let other: string; // 3 accounts
const tokens: string[] = [];
const answers: ListAnswer[] = [];

/** One List call of ServiceAccount, kept for the token scan. */
async function list(query: Record<string, unknown>, page: Parameters<typeof suite.plugin.list>[2] = {}) {
  const answer = await suite.plugin.list("ServiceAccount", query, page);
  answers.push(answer);
  suite.seen.push(...answer.messages);
  return answer;
}

/** Every page of a listing, following continuations; the pages' sizes. */
async function allPages(projectId: string, page: { limit?: number; pageSize?: number }) {
  const items: ListAnswer["items"] = [];
  const sizes: number[] = [];
  let continuation: string | undefined;
  do {
    const a = await list({ projectId }, { ...page, continuation });
    items.push(...a.items);
    sizes.push(a.items.length);
    continuation = a.continuation;
  } while (continuation !== undefined);
  return { items, sizes };
}

const idsOf = (projectId: string): string[] => liveIds(suite.sim, projectId).map((id) => `${projectId}/${id}`);

beforeAll(async () => {
  project = suite.sim.addProject({ name: "console-25" }).id;
  other = suite.sim.addProject({ name: "console-3" }).id;
  for (let i = 0; i < 25; i++)
    tokens.push((await consoleAccount(suite.sim, project, `worker ${String(i).padStart(2, "0")}`)).token);
  for (let i = 0; i < 3; i++) tokens.push((await consoleAccount(suite.sim, other, `other ${i}`)).token);
});

describe("List", () => {
  test("ServiceAccount: the project's 25 accounts in one answer from one listing, each id importable", async () => {
    suite.sim.clearRequests();
    const a = await list({ projectId: project });
    expect(a.computed).toBe(false);
    expect(a.continuation).toBeUndefined();
    expect(a.items.map((i) => i.id).sort()).toEqual(idsOf(project));
    expect(a.items.map((i) => i.name).sort()).toEqual(
      Array.from({ length: 25 }, (_, i) => `worker ${String(i).padStart(2, "0")}`),
    );
    expect(suite.sim.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /v2/projects/${project}/api-keys`]);
    // the ids are the form `pulumi import` takes, and the plugin's import takes each as is
    for (const { id } of a.items) expect(parseImportId(id).projectId).toBe(project);
    suite.warnings(); // each import warns that the token is not held
    for (const { id, name } of a.items.slice(0, 5)) {
      const read = await suite.plugin.read("ServiceAccount", id, {});
      expect(jsonOf(read.getProperties())).toMatchObject({ projectId: project, name, tokenHeld: false });
    }
    expect(writesOf(suite.sim)).toEqual([]);
  });

  test("the other project's 3 accounts only; a secret projectId is read as its value", async () => {
    const a = await list({ projectId: secretOf(other) });
    expect(a.items.map((i) => i.id).sort()).toEqual(idsOf(other));
  });

  test("pages of pageSize 10: 10, 10, 5 through continuations, every account once", async () => {
    const { items, sizes } = await allPages(project, { pageSize: 10 });
    expect(sizes).toEqual([10, 10, 5]);
    expect(items.map((i) => i.id).sort()).toEqual(idsOf(project));
  });

  test("limit caps the whole enumeration: 10 alone is one answer; 12 in pages of 5 is 5, 5, 2", async () => {
    const ten = await list({ projectId: project }, { limit: 10 });
    expect(ten.items).toHaveLength(10);
    expect(ten.continuation).toBeUndefined();
    expect((await allPages(project, { limit: 12, pageSize: 5 })).sizes).toEqual([5, 5, 2]);
    expect((await list({ projectId: project }, { limit: -1 })).items).toHaveLength(25); // < 1: no limit
  });

  test("a continuation survives accounts made and deleted between pages: none twice, none lost", async () => {
    const first = await list({ projectId: project }, { pageSize: 10 });
    const sent = new Set(first.items.map((i) => i.id));
    // delete one account already sent, then make one: the next pages start after the last id sent
    const gone = parseImportId(first.items[0].id).accountId;
    await testClient(suite.sim).deleteServiceAccount(project, gone);
    const made = await consoleAccount(suite.sim, project, "made between pages");
    tokens.push(made.token);
    let continuation = first.continuation;
    const rest: string[] = [];
    while (continuation !== undefined) {
      const page = await list({ projectId: project }, { pageSize: 10, continuation });
      rest.push(...page.items.map((i) => i.id));
      continuation = page.continuation;
    }
    expect(rest.filter((id) => sent.has(id))).toEqual([]);
    const last = [...sent].sort().pop() as string;
    const expected = idsOf(project).filter((id) => id > last);
    expect(rest.sort()).toEqual(expected);
    expect(liveIds(suite.sim, project)).toHaveLength(25);
  });

  test("a continuation given back with another query, or made up, is refused before any request", async () => {
    const first = await list({ projectId: project }, { pageSize: 10 });
    suite.sim.clearRequests();
    const other1 = await rejectionOf<grpc.ServiceError>(
      list({ projectId: other }, { pageSize: 10, continuation: first.continuation }),
    );
    expect(other1.details).toMatch(/continuation token was given for another query/);
    const madeUp = await rejectionOf<grpc.ServiceError>(list({ projectId: project }, { continuation: "abc" }));
    expect(madeUp.details).toBe('pulumi-pims: the continuation token "abc" is not one pims gave');
  });

  test("an unknown projectId (a preview) is answered `computed`, with no request", async () => {
    suite.sim.clearRequests();
    const a = await list({ projectId: UNKNOWN });
    expect(a).toMatchObject({ computed: true, items: [] });
    expect(a.continuation).toBeUndefined();
    expect(a.messages).toHaveLength(1);
    expect(suite.sim.requests).toEqual([]);
  });

  test("no projectId: refused naming it, with no request; a project the service refuses: its message", async () => {
    suite.sim.clearRequests();
    const missing = await rejectionOf<grpc.ServiceError>(list({}));
    expect(missing.details).toBe("pulumi-pims: listing service accounts: projectId is required");
    expect(suite.sim.requests).toEqual([]);
    const unknown = await rejectionOf<grpc.ServiceError>(list({ projectId: "p-00000000" }));
    expect(unknown.details).toMatch(/^listing API keys of project p-00000000: 404 project p-00000000 not found/);
  });

  test("Project answers none (the service cannot list projects), with no request; VolumeSize cannot list", async () => {
    suite.sim.clearRequests();
    const projects = await suite.plugin.list("Project", {});
    expect(projects).toMatchObject({ items: [], computed: false, messages: [] });
    expect(suite.sim.requests).toEqual([]);
    const volume = await rejectionOf<grpc.ServiceError>(suite.plugin.list("VolumeSize", { projectId: project }));
    expect(volume.details).toMatch(/pims:index:VolumeSize cannot be listed/);
  });

  test("no token (the provider's, or any account's) in any answer", () => {
    expect(answers.length).toBeGreaterThan(10);
    suite.expectNoSecretsSeen(tokens);
  });
});
