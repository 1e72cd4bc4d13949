// A real `annals serve` for the tests: on :0, on its own database in a temporary folder. The
// binary is $ANNALS_BIN (clients/clients_test.go builds it), or built here with `go build`.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

let built;
function binary() {
  if (process.env.ANNALS_BIN) return process.env.ANNALS_BIN;
  if (!built) {
    const dir = mkdtempSync(join(tmpdir(), "annals-bin-"));
    built = join(dir, "annals");
    execFileSync("go", ["build", "-o", built, "./cmd/annals"], { cwd: repo, stdio: "inherit" });
  }
  return built;
}

// The server's environment: no ANNALS_* of the caller's (a configured server or database), and
// its own config and data folders.
function cleanEnv(dir) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("ANNALS_")));
  return { ...env, XDG_CONFIG_HOME: dir, XDG_DATA_HOME: dir };
}

/** Creates an API key on db and answers its secret. */
export function createKey(db, ...args) {
  const out = execFileSync(binary(), ["keys", "create", "--db", db, "--json", ...args], { encoding: "utf8", env: cleanEnv(dirname(db)) });
  return JSON.parse(out).secret;
}

/**
 * Starts a server. keys(db) runs before it starts (create keys there for key mode; none is local
 * mode). Answers {url, db, stop}.
 */
export async function startServer(keys = () => ({})) {
  const dir = mkdtempSync(join(tmpdir(), "annals-ts-"));
  const db = join(dir, "annals.db");
  execFileSync(binary(), ["migrate", "--db", db], { stdio: "ignore", env: cleanEnv(dir) });
  const made = keys(db);
  const portFile = join(dir, "port.json");
  const proc = spawn(binary(), ["serve", "--db", db, "--addr", "127.0.0.1:0", "--port-file", portFile], {
    stdio: ["ignore", "ignore", "pipe"],
    env: cleanEnv(dir),
  });
  let stderr = "";
  proc.stderr.on("data", (b) => (stderr += b));
  for (let i = 0; i < 300 && !existsSync(portFile); i++) {
    if (proc.exitCode !== null) throw new Error(`annals serve exited ${proc.exitCode}: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  let port;
  for (let i = 0; i < 100 && port === undefined; i++) {
    try {
      port = JSON.parse(readFileSync(portFile, "utf8")).port;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  if (port === undefined) throw new Error(`annals serve wrote no port file: ${stderr}`);
  return {
    url: `http://127.0.0.1:${port}`,
    db,
    ...made,
    async stop() {
      if (proc.exitCode === null) {
        const done = new Promise((r) => proc.once("exit", r));
        proc.kill("SIGINT");
        await done;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A proxy in front of target that fails every other request, alternating a 503 answer and a
 * dropped connection; answers {url, requests(), close}. rewriteVersion, when set, replaces the
 * server's Annals-Api-Version header (a server of another API version) and fails nothing.
 */
export async function startProxy(target, { rewriteVersion } = {}) {
  let n = 0;
  const server = http.createServer((req, res) => {
    n++;
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      if (!rewriteVersion && n % 2 === 0) {
        if (n % 4 === 0) {
          req.socket.destroy();
          return;
        }
        res.writeHead(503, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ error: { code: "unavailable", message: "the proxy fails every other request" } }));
        return;
      }
      const u = new URL(req.url, target);
      const up = http.request(u, { method: req.method, headers: { ...req.headers, host: u.host } }, (ur) => {
        const headers = { ...ur.headers };
        if (rewriteVersion) headers["annals-api-version"] = rewriteVersion;
        res.writeHead(ur.statusCode, headers);
        ur.pipe(res);
      });
      up.on("error", () => req.socket.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests: () => n,
    close: () => new Promise((r) => server.close(r)),
  };
}
