// Trunk post-build hook: fills the Content-Security-Policy placeholder in the
// staged index.html. Inline scripts are allowed only by the SHA-256 of their
// exact text (Trunk's own bootstrap), so no other inline script, no eval and
// no connection outside the site's origin can run.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

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
