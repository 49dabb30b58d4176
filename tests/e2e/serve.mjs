// A minimal static file server for dist/: the e2e tests start it on a free
// port and record every request it gets; `scripts/serve.sh` runs it on
// 127.0.0.1:8080. It serves files under one root folder and nothing else.
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".md": "text/markdown; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};

/** Starts serving `root`; resolves to { server, url, requests }. */
export function serve(root, { host = "127.0.0.1", port = 0 } = {}) {
  const base = resolve(root);
  const requests = [];
  const server = createServer(async (req, res) => {
    requests.push(req.url);
    try {
      const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
      let file = normalize(join(base, path));
      if (file !== base && !file.startsWith(base + sep)) throw Object.assign(new Error("outside root"), { code: "ENOENT" });
      if ((await stat(file)).isDirectory()) file = join(file, "index.html");
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-cache" });
      res.end(body);
    } catch (e) {
      res.writeHead(e.code === "ENOENT" || e.code === "ENOTDIR" ? 404 : 500, { "content-type": "text/plain" });
      res.end("not found");
    }
  });
  return new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(port, host, () => {
      const { port } = server.address();
      ok({ server, url: `http://${host}:${port}/`, requests });
    });
  });
}

// `node tests/e2e/serve.mjs DIR [PORT]` serves DIR until interrupted.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [dir = "dist", port = "8080"] = process.argv.slice(2);
  const { url } = await serve(dir, { port: Number(port) });
  console.log(`AgentRisk Viewer: serving ${dir}/ at ${url} (Ctrl-C to stop)`);
}
