// A minimal agent loop that captures its transcript into annals and reads it back.
//   ANNALS_URL=http://127.0.0.1:7457 ANNALS_KEY=annals_... node examples/agent-loop.mjs
// (after `npm run build`; in your own project: import from "@annals/client").
import { BestEffort, Client, Recorder } from "../dist/index.js";

const client = new Client(process.env.ANNALS_URL ?? "http://127.0.0.1:7457", { apiKey: process.env.ANNALS_KEY });
// Best effort: if annals is down, the agent keeps running (one warning, then capture is off).
const sink = new BestEffort(client);
const chatId = `example-${Date.now()}`;
const rec = new Recorder(sink, { id: chatId, title: "Why is CI red?", attributes: { source: "agent-loop" } });

const model = async (prompt) => `I looked at "${prompt}": a flaky integration test.`; // your model call
for (const prompt of ["why is CI red?", "which test?"]) {
  rec.append({ kind: "user", text: prompt });
  rec.append({ kind: "tool", tool: { name: "shell", arguments: { cmd: "make test" }, result: "FAIL TestUpload", outcome: "failed" } });
  rec.append({ kind: "assistant", text: await model(prompt) });
}
rec.recordRun({ id: `${chatId}/run-1`, status: "completed", model: "example-model", input_tokens: 812, output_tokens: 64 });
await rec.close();

const hits = await client.search({ query: "flaky" });
console.log(`captured ${chatId}; search "flaky" finds:`, hits.chats?.map((h) => h.chat.id).join(", "));
for await (const e of client.entries({ session_id: chatId })) console.log(`${e.seq} ${e.kind}: ${e.text ?? e.tool?.name}`);
