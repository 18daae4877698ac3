// OpenJDKs of other Debian releases for the Java tests (issue 32: "every JDK the machine has; CI
// installs 17 from Debian and fetches 11 and 21 as the kernel tests fetch kernels"): each
// jre-headless package is downloaded and unpacked into the kernel tests' cache, never installed.
// 11 comes from bullseye and runs on the host's libc. 21 comes from trixie, built against glibc
// 2.38 (its libjli.so needs GLIBC_2.38; bookworm has 2.36): it runs under trixie's own dynamic
// loader with trixie's libc6, libstdc++6, libgcc-s1 and zlib1g beside it. The JVM still maps its
// own lib/server/libjvm.so, which is what ptop looks for; argv[0] (the workload name) is untouched.
import { existsSync, readFileSync, readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { CACHE_DIR, unpackDebianPackage } from "../helpers/debian-packages.ts";

export interface FetchedJdk {
  major: number;
  home: string;
  /** the command that starts this JDK's java: the arguments follow */
  java: string[];
}

interface FetchSpec {
  major: number;
  suite: string;
  /** that suite's libraries the JDK needs in place of the host's, or none */
  runtime: string[];
}

const SPECS: FetchSpec[] = [
  { major: 11, suite: "bullseye", runtime: [] },
  { major: 21, suite: "trixie", runtime: ["libc6", "libstdc++6", "libgcc-s1", "zlib1g"] },
];

function fetchJdk(s: FetchSpec): FetchedJdk {
  const pkg = `openjdk-${s.major}-jre-headless`;
  const dir = join(CACHE_DIR, `${pkg}-${s.suite}`);
  unpackDebianPackage(`${pkg}:amd64`, dir, ["./usr/lib/jvm"], s.suite);
  const home = join(dir, `usr/lib/jvm/java-${s.major}-openjdk-amd64`);
  if (!existsSync(join(home, "lib/server/libjvm.so"))) throw new Error(`${pkg} from ${s.suite} has no lib/server/libjvm.so under ${home}`);
  if (s.runtime.length === 0) return { major: s.major, home, java: [join(home, "bin/java")] };
  const libs = s.runtime.map((p) => {
    const d = join(CACHE_DIR, `${p}-${s.suite}-amd64`);
    unpackDebianPackage(`${p}:amd64`, d, [], s.suite);
    return join(d, "usr/lib/x86_64-linux-gnu");
  });
  const loader = join(libs[0]!, "ld-linux-x86-64.so.2");
  return { major: s.major, home, java: [loader, "--library-path", [...libs, join(home, "lib")].join(":"), join(home, "bin/java")] };
}

/** JDK 11 and 21 fetched (once; cached), or why they cannot be: no apt-get/dpkg-deb, no network,
 *  the suite gone from the mirror. RUNNER_REQUIRE_LIVE=1 (CI) makes that an error. */
export function fetchJdks(): { jdks: FetchedJdk[]; why: string | null } {
  try {
    for (const tool of ["apt-get", "dpkg-deb"]) if (Bun.which(tool) === null) throw new Error(`${tool} is not installed`);
    return { jdks: SPECS.map(fetchJdk), why: null };
  } catch (e) {
    const why = `could not fetch OpenJDK ${SPECS.map((s) => s.major).join(" and ")} from Debian: ${(e as Error).message}`;
    if (process.env.RUNNER_REQUIRE_LIVE === "1") throw new Error(`RUNNER_REQUIRE_LIVE=1 but ${why}`);
    return { jdks: [], why };
  }
}

export const DEBIAN_JDK = "/usr/lib/jvm/java-17-openjdk-amd64";

/** The JDKs whose nmethods ptop does not walk: it must say so (README "Java frames"). */
export const NOT_WALKED = new Set([23, 24]);

/** A JDK's major version, from its release file (JAVA_VERSION="17.0.21"). */
function majorOf(jdk: string): number {
  const release = existsSync(join(jdk, "release")) ? readFileSync(join(jdk, "release"), "utf8") : "";
  return Number(/JAVA_VERSION="(\d+)/.exec(release)?.[1] ?? 0);
}

/** Every JDK under /usr/lib/jvm (one per real directory), Debian's 17 first. */
function installedJdks(): string[] {
  if (!existsSync("/usr/lib/jvm")) return [];
  const homes = new Set<string>();
  for (const name of readdirSync("/usr/lib/jvm")) {
    const home = join("/usr/lib/jvm", name);
    if (existsSync(join(home, "bin/java")) && existsSync(join(home, "lib/server/libjvm.so"))) homes.add(realpathSync(home));
  }
  return [...homes].sort((a, b) => Number(b === DEBIAN_JDK) - Number(a === DEBIAN_JDK) || a.localeCompare(b));
}

/** The Java tests' JDKs: the installed ones, then the fetched ones (logged, not failed, when they
 *  cannot be fetched here and RUNNER_REQUIRE_LIVE is not set). */
export function javaTestJdks(): FetchedJdk[] {
  const installed = installedJdks().map((home) => ({ major: majorOf(home), home, java: [join(home, "bin/java")] }));
  const fetched = fetchJdks();
  if (fetched.why) console.log(`java tests: skipping the fetched JDKs: ${fetched.why}`);
  return [...installed, ...fetched.jdks];
}
