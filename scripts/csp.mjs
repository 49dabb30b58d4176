// Trunk post-build hook: fills the Content-Security-Policy placeholder in the
// staged index.html, and stamps the service worker with the build's files. Inline scripts are allowed only by the SHA-256 of their
// exact text (Trunk's own bootstrap), so no other inline script, no eval and
// no connection outside the site's origin can run.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error("csp.mjs: TRUNK_STAGING_DIR is not set (run it as a Trunk hook)");
const file = join(dir, "index.html");
const html = readFileSync(file, "utf8");
if (!html.includes("CSP_PLACEHOLDER")) throw new Error(`csp.mjs: no CSP_PLACEHOLDER in ${file}`);

const hashes = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
  (m) => `'sha256-${createHash("sha256").update(m[1], "utf8").digest("base64")}'`,
);
if (hashes.length === 0) throw new Error("csp.mjs: found no inline bootstrap script to allow");

const policy = [
  "default-src 'none'",
  `script-src 'self' 'wasm-unsafe-eval' ${hashes.join(" ")}`,
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join("; ");
writeFileSync(file, html.replace("CSP_PLACEHOLDER", policy));

// The service worker gets this build's file list and a version from the
// build's contents, so a new build replaces the old cache.
const sw = join(dir, "sw.js");
const files = [];
const walk = (d) => {
  for (const name of readdirSync(d).sort()) {
    const path = join(d, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name !== "sw.js") files.push(relative(dir, path).split(sep).join("/"));
  }
};
walk(dir);
const version = createHash("sha256");
for (const f of files) version.update(f).update(readFileSync(join(dir, f)));
const script = readFileSync(sw, "utf8");
if (!script.includes("BUILD_VERSION") || !script.includes("/* BUILD_FILES */")) throw new Error("csp.mjs: sw.js has no placeholders");
writeFileSync(sw, script
  .replace("BUILD_VERSION", version.digest("hex").slice(0, 16))
  .replace("/* BUILD_FILES */", files.map((f) => JSON.stringify(`./${f}`)).join(", ")));
