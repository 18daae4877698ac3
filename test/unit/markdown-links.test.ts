// Every relative link in the repository's Markdown resolves to a file or folder inside the
// repository: a clone is complete (issue 34: the README linked ../shared/DESIGN.md, which no clone
// has). Links to the web (http:, https:, mailto:) and in-page anchors are not files and are left out.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { REPO_ROOT } from "../helpers/runner-bin.ts";

/** The Markdown files git tracks, plus any new one not yet committed (not ignored). */
function markdownFiles(): string[] {
  const r = Bun.spawnSync(["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.md"], { cwd: REPO_ROOT });
  if (r.exitCode !== 0) throw new Error(`git ls-files failed: ${r.stderr.toString()}`);
  return r.stdout.toString().split("\n").filter(Boolean);
}

/** Paths written as code that climb out of their folder (`../x/y.md`): a reader follows them like links. */
export function climbingPaths(markdown: string): string[] {
  return [...markdown.replace(/```[\s\S]*?```/g, "").matchAll(/`(\.\.\/[^`\s]+)`/g)].map((m) => m[1]!);
}

/** Inline links and images `[text](target "title")`, reference definitions `[x]: target`, and HTML href/src. */
export function linkTargets(markdown: string): string[] {
  const text = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  const out: string[] = [];
  for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push(m[1]!);
  for (const m of text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) out.push(m[1]!);
  for (const m of text.matchAll(/\b(?:href|src)="([^"]+)"/g)) out.push(m[1]!);
  return out;
}

/** Why `target`, linked from `file`, is not a file inside the repository; null when it is (or is not a file link). */
export function brokenLink(root: string, file: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) return null;
  const path = decodeURIComponent(target.split("#")[0]!.split("?")[0]!);
  const abs = path.startsWith("/") ? resolve(root, `.${path}`) : resolve(dirname(resolve(root, file)), path);
  const inside = relative(root, abs);
  if (inside.startsWith("..") || resolve(root, inside) !== abs) return `${file}: ${target} points outside the repository`;
  if (!existsSync(abs)) return `${file}: ${target} does not exist`;
  return null;
}

describe("Markdown links", () => {
  test("every relative link in the repository's Markdown resolves inside it", () => {
    const files = markdownFiles();
    expect(files).toContain("README.md");
    const broken = files
      .flatMap((f) => {
        const md = readFileSync(resolve(REPO_ROOT, f), "utf8");
        return [...linkTargets(md), ...climbingPaths(md)].map((t) => brokenLink(REPO_ROOT, f, t));
      })
      .filter((x) => x !== null);
    expect(broken).toEqual([]);
  });

  test("the checker sees links and refuses one outside the clone or to a missing file", () => {
    const md = 'See [design](../shared/DESIGN.md), [ok](docs/install.md#x), ![i](img.png "t"), [w](https://x.test), `[not](../a.md)`\n[ref]: ./nope.md\n<a href="../out.md">o</a>';
    const targets = linkTargets(md);
    expect(targets).toEqual(["../shared/DESIGN.md", "docs/install.md#x", "img.png", "https://x.test", "./nope.md", "../out.md"]);
    expect(climbingPaths("the architecture (see `../shared/DESIGN.md`), `a/b.md`")).toEqual(["../shared/DESIGN.md"]);
    const why = targets.map((t) => brokenLink(REPO_ROOT, "README.md", t));
    expect(why).toEqual([
      "README.md: ../shared/DESIGN.md points outside the repository",
      null,
      "README.md: img.png does not exist",
      null,
      "README.md: ./nope.md does not exist",
      "README.md: ../out.md points outside the repository",
    ]);
  });
});
