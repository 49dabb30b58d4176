// Installs the packed npm package (target/npm/agentrisk-*.tgz, built by
// scripts/package.sh) into a fresh folder, as a user would, and imports it
// by its name.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

export const root = resolve(import.meta.dirname, "../..");

export function tarball() {
  const dir = join(root, "target/npm");
  const found = readdirSync(dir).filter((f) => /^agentrisk-.*\.tgz$/.test(f));
  if (found.length !== 1) {
    throw new Error(`expected one agentrisk-*.tgz in ${dir} (run bash scripts/package.sh), found ${found}`);
  }
  return join(dir, found[0]);
}

/** The installed package's module, imported through its `exports`. */
export async function installed() {
  const dir = mkdtempSync(join(tmpdir(), "agentrisk-npm-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--silent", tarball()], { cwd: dir });
  writeFileSync(join(dir, "entry.mjs"), 'export * from "agentrisk";\n');
  const agentrisk = await import(pathToFileURL(join(dir, "entry.mjs")).href);
  await agentrisk.ready;
  return { agentrisk, dir };
}
