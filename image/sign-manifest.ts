// Release-manifest tooling (runs on the signing host, never inside the Profiler):
//   bun image/sign-manifest.ts keygen DIR
//       -> DIR/release-key.pem (ECDSA P-256, PKCS#8, mode 0600) and DIR/release-key.pub.pem
//   bun image/sign-manifest.ts sign --key KEY.pem --version V --out DIR runner/amd64=PATH ptop/amd64=PATH ...
//       -> DIR/release-manifest.json and DIR/release-manifest.sigstore.json
//   bun image/sign-manifest.ts verify --pub KEY.pub.pem DIR [runner/amd64=PATH ...]
//       -> verifies the bundle offline (and each given binary against the manifest); exit 1 if not
//   bun image/sign-manifest.ts cosign-key --key KEY.pem --passphrase-file F --out cosign.key
//       -> the same release key in cosign's encrypted format (cosign sign --key, podman/skopeo
//          --sign-by-sigstore-private-key where they are built with sigstore)
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { digestFile } from "../src/release/digest.ts";
import { trustedKeyFromPem } from "../src/release/keys.ts";
import { ARCHES, BINARY_NAMES, BUNDLE_FILE, findBinary, MANIFEST_FILE, serializeManifest, type Arch, type BinaryName } from "../src/release/manifest.ts";
import { buildManifest, generateReleaseKey, signManifest, type BinaryInput } from "../src/release/sign.ts";
import { verifyManifest } from "../src/release/verify.ts";

function die(msg: string): never {
  process.stderr.write(`sign-manifest: ${msg}\n`);
  process.exit(1);
}

function parseArgs(argv: string[]): { opts: Record<string, string>; rest: string[] } {
  const opts: Record<string, string> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith("--")) {
      const v = argv[++i];
      if (v === undefined) die(`${a} needs a value`);
      opts[a.slice(2)] = v;
    } else rest.push(a);
  }
  return { opts, rest };
}

function binaries(specs: string[]): BinaryInput[] {
  return specs.map((s) => {
    const m = /^([a-z]+)\/([a-z0-9]+)=(.+)$/.exec(s);
    if (!m || !(BINARY_NAMES as readonly string[]).includes(m[1]!) || !(ARCHES as readonly string[]).includes(m[2]!)) {
      die(`"${s}" is not NAME/ARCH=PATH with NAME in ${BINARY_NAMES.join("|")} and ARCH in ${ARCHES.join("|")}`);
    }
    return { name: m[1] as BinaryName, arch: m[2] as Arch, path: m[3]! };
  });
}

const [cmd, ...argv] = process.argv.slice(2);
const { opts, rest } = parseArgs(argv);
if (cmd === "keygen") {
  const dir = rest[0] ?? die("keygen DIR");
  mkdirSync(dir, { recursive: true });
  const k = generateReleaseKey();
  writeFileSync(join(dir, "release-key.pem"), k.privatePem, { mode: 0o600 });
  writeFileSync(join(dir, "release-key.pub.pem"), k.publicPem);
  process.stdout.write(`${join(dir, "release-key.pub.pem")} (hint ${trustedKeyFromPem(k.publicPem).hint})\n`);
} else if (cmd === "sign") {
  const key = readFileSync(opts.key ?? die("--key KEY.pem is required"), "utf8");
  const out = opts.out ?? die("--out DIR is required");
  const bins = binaries(rest);
  if (bins.length === 0) die("name at least one binary (runner/amd64=PATH ...)");
  const text = serializeManifest(buildManifest(opts.version ?? die("--version is required"), bins));
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, MANIFEST_FILE), text);
  writeFileSync(join(out, BUNDLE_FILE), await signManifest(text, key));
  process.stdout.write(text);
} else if (cmd === "verify") {
  const pub = trustedKeyFromPem(readFileSync(opts.pub ?? die("--pub KEY.pub.pem is required"), "utf8"));
  const dir = rest[0] ?? die("verify --pub KEY DIR");
  let manifest;
  try {
    manifest = verifyManifest(readFileSync(join(dir, MANIFEST_FILE)), readFileSync(join(dir, BUNDLE_FILE), "utf8"), [pub]).manifest;
  } catch (err) {
    die((err as Error).message);
  }
  let bad = 0;
  for (const b of binaries(rest.slice(1))) {
    const want = findBinary(manifest, b.name, b.arch);
    const got = digestFile(b.path);
    const ok = want !== undefined && want.sha256 === got.sha256 && want.size === got.size;
    if (!ok) bad++;
    process.stdout.write(`${ok ? "OK      " : "MISMATCH"} ${b.name}/${b.arch} ${b.path}\n`);
  }
  process.stdout.write(`manifest version ${manifest.version} signed by ${pub.hint}\n`);
  if (bad > 0) process.exit(1);
} else if (cmd === "cosign-key") {
  const key = readFileSync(opts.key ?? die("--key KEY.pem is required"), "utf8");
  const pass = readFileSync(opts["passphrase-file"] ?? die("--passphrase-file F is required"), "utf8").replace(/\r?\n$/, "");
  const out = opts.out ?? die("--out FILE is required");
  // Loaded only here: libsodium's start-up cost stays out of keygen/sign/verify.
  const { toSigstorePrivateKey } = await import("../src/release/sigstore-key.ts");
  writeFileSync(out, await toSigstorePrivateKey(key, Buffer.from(pass, "utf8")), { mode: 0o600 });
  process.stdout.write(`${out}\n`);
} else {
  die("usage: sign-manifest.ts keygen DIR | sign --key K --version V --out DIR NAME/ARCH=PATH... | verify --pub P DIR [NAME/ARCH=PATH...] | cosign-key --key K --passphrase-file F --out FILE");
}
