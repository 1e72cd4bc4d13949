// Capture throughput of the TypeScript client: node bench/capture.mjs URL CHAT TOTAL BATCH
// appends TOTAL entries to a new chat in requests of BATCH (POST /v1/sessions/{id}/entries) and
// prints {"entries", "seconds", "cpu_seconds"} (this process's CPU while capturing). The
// entries are the ones clients/throughput_bench_test.go and bench/capture.py send.
import { Client } from "../dist/index.js";

const [url, chat, total, batch] = process.argv.slice(2);
const c = new Client(url, { apiKey: process.env.ANNALS_KEY });
await c.createChat({ id: chat, title: "capture throughput" });
const entry = (i) => ({
  id: `e${i}`,
  kind: i % 2 ? "assistant" : "user",
  text: `turn ${i}: the build failed in TestUpload because the fixture server timed out after 30 seconds; retrying with a longer deadline and logging the request ids of every upload (${i})`,
});
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < Number(total); i += Number(batch)) {
  const entries = [];
  for (let j = i; j < Math.min(Number(total), i + Number(batch)); j++) entries.push(entry(j));
  await c.appendEntries(chat, entries);
}
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
console.log(JSON.stringify({ entries: Number(total), seconds, cpu_seconds: (cpu.user + cpu.system) / 1e6 }));
