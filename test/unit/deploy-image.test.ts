// The Dockerfile and the build script, parsed: non-root user, binaries root-owned, setcap on ptop
// (exactly the five, +ep) in a RUN of the final stage after the COPY (a COPY drops the xattr),
// nothing else given capabilities, the signed manifest shipped beside runner, a healthcheck, and
// both architectures built, checked and signed.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REQUIRED_CAPS } from "../../src/profiler/boot/capability-names.ts";
import { BUNDLE_FILE, MANIFEST_FILE } from "../../src/release/manifest.ts";
import { REPO_ROOT } from "../helpers/runner-bin.ts";

interface Instruction {
  op: string;
  args: string;
}

function parseDockerfile(src: string): Instruction[] {
  const joined = src.replace(/\\\n/g, " ");
  return joined
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((l) => {
      const m = /^(\S+)\s+([\s\S]*)$/.exec(l)!;
      return { op: m[1]!.toUpperCase(), args: m[2]! };
    });
}

const ins = parseDockerfile(readFileSync(join(REPO_ROOT, "Dockerfile"), "utf8"));
const lastFrom = ins.map((i) => i.op).lastIndexOf("FROM");
const final = ins.slice(lastFrom);

describe("Dockerfile", () => {
  test("the final stage runs as the non-root user 65532", () => {
    const users = final.filter((i) => i.op === "USER");
    expect(users.at(-1)!.args).toBe("65532:65532");
  });

  test("setcap of exactly the five (+ep) on ptop, in a RUN after ptop is copied, and on nothing else", () => {
    const copy = final.findIndex((i) => i.op === "COPY" && /\bptop\b/.test(i.args));
    const setcaps = final.flatMap((i, at) => [...i.args.matchAll(/setcap\s+(cap_\S+)\s+([^\s;&|]+)/g)].map((m) => ({ at, op: i.op, caps: m[1]!, file: m[2]! })));
    expect(setcaps).toHaveLength(1);
    const s = setcaps[0]!;
    expect(s.op).toBe("RUN");
    expect(s.at).toBeGreaterThan(copy);
    expect(s.file).toBe("/opt/runner/ptop");
    const [list, flags] = s.caps.split("+");
    expect(flags).toBe("ep");
    expect(list!.split(",").sort()).toEqual(REQUIRED_CAPS.map((c) => c.name.toLowerCase()).sort());
    // No later COPY/ADD overwrites ptop (which would drop the xattr again).
    expect(final.slice(s.at + 1).some((i) => (i.op === "COPY" || i.op === "ADD") && /ptop/.test(i.args))).toBe(false);
  });

  test("ptop is executable by the Profiler's group only (root:65532 0750), set before setcap (chown clears it)", () => {
    const run = final.filter((i) => i.op === "RUN").map((i) => i.args).join(" ");
    const chown = run.indexOf("chown root:65532 /opt/runner/ptop");
    const chmod = run.search(/chmod 0750 \/opt\/runner\/ptop\b/);
    const setcap = run.indexOf("setcap cap_");
    expect(chown).toBeGreaterThan(run.indexOf("chown root:root /opt/runner/*"));
    expect(chmod).toBeGreaterThan(-1);
    expect(setcap).toBeGreaterThan(Math.max(chown, chmod));
    expect(run).not.toMatch(/chmod 07[0-7][1357]\b[^;]*\/opt\/runner\/ptop/); // never executable by others
  });

  test("ships the signed manifest beside runner and ptop, root-owned and read-only", () => {
    const copies = final.filter((i) => i.op === "COPY").map((i) => i.args).join(" ");
    expect(copies).toContain(MANIFEST_FILE);
    expect(copies).toContain(BUNDLE_FILE);
    const run = final.filter((i) => i.op === "RUN").map((i) => i.args).join(" ");
    expect(run).toContain("chown root:root /opt/runner/*;");
    expect(run).toMatch(/chmod 0644 \/opt\/runner\/release-manifest\.json/);
  });

  test("copies per-architecture binaries (multi-arch) and has a healthcheck and an entrypoint", () => {
    expect(final.some((i) => i.op === "COPY" && i.args.includes("${TARGETARCH}/runner"))).toBe(true);
    expect(ins.some((i) => i.op === "ARG" && i.args === "TARGETARCH")).toBe(true);
    expect(final.some((i) => i.op === "HEALTHCHECK" && /CMD/.test(i.args))).toBe(true);
    expect(JSON.parse(final.find((i) => i.op === "ENTRYPOINT")!.args)).toEqual(SETPRIV_RUNNER);
  });

  test("the entrypoint (and the healthcheck) clear ambient and inheritable capabilities with setpriv, exec form, no shell", () => {
    const hc = final.find((i) => i.op === "HEALTHCHECK")!.args;
    expect(JSON.parse(hc.slice(hc.indexOf("CMD") + 3).trim())).toEqual([...SETPRIV_RUNNER, "doctor"]);
  });

  test("the last RUN strips setuid/setgid bits, package managers, interpreters and shells, the shell last", () => {
    const run = final.filter((i) => i.op === "RUN").map((i) => i.args).pop()!;
    expect(run).toContain("find / -xdev -type f -perm /6000 -exec chmod ug-s {} +");
    for (const p of ["/usr/bin/apt", "/usr/bin/dpkg", "/var/lib/dpkg", "/usr/bin/perl", "/usr/bin/bash", "/usr/bin/dash", "/usr/bin/sh", "/bin/sh"]) expect(run).toContain(` ${p}`);
    expect(run.trimEnd().endsWith("/bin/sh")).toBe(true);
  });

  test("the identity volume is owned by 65532 and declared", () => {
    const run = final.filter((i) => i.op === "RUN").map((i) => i.args).join(" ");
    expect(run).toContain("install -d -o 65532 -g 65532 -m 0700 /var/lib/runner");
    expect(final.find((i) => i.op === "VOLUME")!.args).toContain("/var/lib/runner");
  });
});

const SETPRIV_RUNNER = ["/usr/bin/setpriv", "--ambient-caps=-all", "--inh-caps=-all", "--", "/opt/runner/runner"];

describe("image/build.sh", () => {
  const sh = readFileSync(join(REPO_ROOT, "image/build.sh"), "utf8");

  test("is valid bash", () => {
    const r = Bun.spawnSync(["bash", "-n", join(REPO_ROOT, "image/build.sh")]);
    expect(r.stderr.toString()).toBe("");
    expect(r.exitCode).toBe(0);
  });

  test("builds runner and ptop for amd64 and arm64, embeds the release key, checks arches, signs all four", () => {
    expect(sh).toContain("for arch in amd64 arm64");
    expect(sh).toContain("bun-linux-");
    expect(sh).toContain("--define \"RUNNER_RELEASE_PUBLIC_KEY=");
    expect(sh).toContain('file -b "$CTX/$arch/$bin"');
    expect(sh).toContain("qemu-aarch64-static");
    for (const b of ["runner/amd64", "ptop/amd64", "runner/arm64", "ptop/arm64"]) expect(sh).toContain(`${b}=`);
  });

  test("builds from a debootstrap base with buildah, never pulling from a registry by default", () => {
    expect(sh).toContain("debootstrap");
    expect(sh).toContain("buildah");
    expect(sh).toMatch(/BASE="localhost\//);
  });

  test("builds Docker-format images (the HEALTHCHECK survives), publishes runner-release.pub, pushes and signs with the same key", () => {
    expect(sh).toContain("bud --format docker");
    expect(sh).toContain('> "$OUT/runner-release.pub"');
    expect(sh).toContain("manifest push --all --format v2s2");
    expect(sh).toContain('image/sign-image.ts" sign --key "$KEY"');
    expect(sh).toContain('image/sign-image.ts" verify --pub "$OUT/runner-release.pub"');
  });
});
