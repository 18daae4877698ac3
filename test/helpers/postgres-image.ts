// A PostgreSQL container image built from this host's Debian postgresql package (CI installs it;
// no registry is reachable there): the server binaries, their share files and the libraries they
// link, on an empty base, with an entrypoint that honours the official image's variables
// (POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB, PGDATA), so the reference manifests run
// unchanged but for the image name. Test-only: a deployment uses the official image or a managed
// database (docs/install-server.md).
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const UID = 999;

/** The newest /usr/lib/postgresql/N, or null when the package is not installed. */
export function postgresHome(): string | null {
  try {
    const v = readdirSync("/usr/lib/postgresql").filter((d) => /^\d+$/.test(d)).sort((a, b) => Number(a) - Number(b)).at(-1);
    return v ? `/usr/lib/postgresql/${v}` : null;
  } catch {
    return null;
  }
}

function run(argv: string[], env: Record<string, string | undefined>): string {
  // From /: GNU cp --parents -a fails to copy the attributes of the parents of an absolute source.
  const r = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env }, cwd: "/" });
  if (r.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${r.exitCode}: ${r.stderr.toString().slice(-2000)}`);
  return r.stdout.toString();
}

/** The shared objects `files` load (ldd), the dynamic loader included. */
function libraries(files: string[], env: Record<string, string | undefined>): string[] {
  const out = new Set<string>();
  for (const f of files) {
    const r = Bun.spawnSync(["ldd", f], { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
    for (const line of r.stdout.toString().split("\n")) {
      const m = /=>\s+(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
      if (m) out.add(m[1]!);
    }
  }
  return [...out];
}

const ENTRYPOINT = (bin: string) => `#!/bin/sh
# The official image's first-start contract, in the subset the reference manifests use.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s\\n' "$POSTGRES_PASSWORD" > /tmp/pwfile
  ${bin}/initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256 --no-locale -E UTF8 >/dev/null
  : > /tmp/pwfile
  printf 'host all all 0.0.0.0/0 scram-sha-256\\n' >> "$PGDATA/pg_hba.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    echo "CREATE DATABASE \\"$POSTGRES_DB\\" OWNER \\"$POSTGRES_USER\\"" | ${bin}/postgres --single -D "$PGDATA" postgres >/dev/null
  fi
fi
exec ${bin}/postgres -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories=/tmp
`;

/** Builds the image as `tag` with buildah under `env` (its storage settings); returns the tag. */
export function buildPostgresImage(tag: string, work: string, env: Record<string, string | undefined>): string {
  const home = postgresHome();
  if (!home) throw new Error("no /usr/lib/postgresql/N here (apt-get install postgresql)");
  const version = home.split("/").pop()!;
  const ctr = run(["buildah", "from", "scratch"], env).trim();
  try {
    const root = run(["buildah", "mount", ctr], env).trim();
    // JIT is left out: llvmjit.so would bring libLLVM (~100 MB); PostgreSQL runs without it.
    const lib = readdirSync(join(home, "lib")).filter((f) => f.endsWith(".so") && !f.startsWith("llvmjit"));
    const bins = readdirSync(join(home, "bin")).map((f) => join(home, "bin", f));
    const rel = (paths: string[]) => paths.map((p) => p.replace(/^\//, ""));
    run(["cp", "-a", "--parents", ...rel([join(home, "bin"), `/usr/share/postgresql/${version}`, ...lib.map((f) => join(home, "lib", f))]), root], env);
    run(["cp", "-L", "--parents", ...rel(["/usr/share/zoneinfo/UTC", "/usr/share/zoneinfo/Etc/UTC", ...libraries([...bins, ...lib.map((f) => join(home, "lib", f)), "/bin/dash"], env)]), root], env);
    run(["install", "-D", "-m", "0755", "/bin/dash", join(root, "bin/sh")], env);
    run(["install", "-d", "-m", "1777", join(root, "tmp")], env);
    run(["install", "-d", "-m", "0755", "-o", String(UID), "-g", String(UID), join(root, "var/lib/postgresql"), join(root, "var/run/postgresql")], env);
    mkdirSync(join(root, "etc"), { recursive: true });
    writeFileSync(join(root, "etc/passwd"), `postgres:x:${UID}:${UID}:PostgreSQL:/var/lib/postgresql:/bin/sh\n`);
    writeFileSync(join(root, "etc/group"), `postgres:x:${UID}:\n`);
    const entry = join(work, "postgres-entrypoint.sh");
    writeFileSync(entry, ENTRYPOINT(join(home, "bin")));
    run(["install", "-D", "-m", "0755", entry, join(root, "usr/local/bin/postgres-entrypoint")], env);
    run(["buildah", "umount", ctr], env);
    run(["buildah", "config", "--user", `${UID}:${UID}`, "--env", "TZ=UTC", "--env", `PATH=${home}/bin:/usr/bin:/bin`, "--entrypoint", '["/usr/local/bin/postgres-entrypoint"]', "--port", "5432", ctr], env);
    run(["buildah", "commit", "--quiet", ctr, tag], env);
    return tag;
  } finally {
    Bun.spawnSync(["buildah", "rm", ctr], { env: { ...process.env, ...env } });
  }
}
