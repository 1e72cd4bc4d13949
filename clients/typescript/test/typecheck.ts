// Type-level tests, checked by `tsc -p tsconfig.check.json` (npm test): what the types must
// accept and refuse. Nothing here runs.
import { Client, type ChatPage, type OpAnswers, type SearchPage } from "../src/index.js";

declare const c: Client;

export async function accepted(): Promise<void> {
  const page: ChatPage = await c.list({ scope: "tenant", limit: 10 });
  const hits: SearchPage = await c.search({ query: "flaky", mode: "entries" });
  const answer: OpAnswers["pin"] = await c.history({ op: "pin", session_id: "c-1", pinned: true });
  void page, hits, answer;
  await c.related({ query: "deploy" });
  await c.appendEntries("c-1", [{ id: "m1", kind: "user", text: "hi" }]);
}

export async function refused(): Promise<void> {
  // @ts-expect-error search needs a query
  await c.search({});
  // @ts-expect-error no such op
  await c.history({ op: "frobnicate" });
  // @ts-expect-error related takes a chat or a text, not both
  await c.related({ session_id: "c-1", query: "deploy" });
  // @ts-expect-error an unknown entry kind
  await c.appendEntries("c-1", [{ id: "m1", kind: "robot" }]);
  // @ts-expect-error an unknown status
  await c.list({ status: "done" });
  // @ts-expect-error the answer of list is no SearchPage
  const wrong: SearchPage = await c.list();
  void wrong;
}
