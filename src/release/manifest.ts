// The release manifest: which bytes we shipped. One manifest covers every binary of a release for
// every architecture (runner and ptop, amd64 and arm64); its signature is a separate sigstore bundle
// over the manifest file's exact bytes, so the manifest itself stays plain, reviewable JSON.

import { type Static, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

export const MANIFEST_SCHEMA_ID = "runner-release-manifest/1";
/** File names beside the `runner` executable (and in the image's /opt/runner). */
export const MANIFEST_FILE = "release-manifest.json";
export const BUNDLE_FILE = "release-manifest.sigstore.json";

export const BINARY_NAMES = ["runner", "ptop"] as const;
export const ARCHES = ["amd64", "arm64"] as const;
export type BinaryName = (typeof BINARY_NAMES)[number];
export type Arch = (typeof ARCHES)[number];

const Binary = Type.Object(
  {
    name: Type.Union(BINARY_NAMES.map((n) => Type.Literal(n))),
    arch: Type.Union(ARCHES.map((a) => Type.Literal(a))),
    sha256: Type.String({ pattern: "^[0-9a-f]{64}$" }),
    size: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

export const ManifestSchema = Type.Object(
  {
    schema: Type.Literal(MANIFEST_SCHEMA_ID),
    version: Type.String({ minLength: 1 }),
    binaries: Type.Array(Binary, { minItems: 1 }),
  },
  { additionalProperties: false },
);
export type Manifest = Static<typeof ManifestSchema>;
export type ManifestBinary = Manifest["binaries"][number];

/** Strict parse: unknown keys, bad digests or a binary listed twice for one arch are refused. */
export function parseManifest(bytes: Uint8Array | string): Manifest {
  const text = typeof bytes === "string" ? bytes : new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  const value: unknown = JSON.parse(text);
  if (!Value.Check(ManifestSchema, value)) {
    const first = Value.Errors(ManifestSchema, value).First();
    throw new Error(`release manifest is malformed: ${first ? `${first.path || "/"} ${first.message}` : "schema mismatch"}`);
  }
  const seen = new Set<string>();
  for (const b of value.binaries) {
    const key = `${b.name}/${b.arch}`;
    if (seen.has(key)) throw new Error(`release manifest lists ${key} twice`);
    seen.add(key);
  }
  return value;
}

/** The bytes that get signed: stable key order, one trailing newline. */
export function serializeManifest(m: Manifest): string {
  const binaries = [...m.binaries]
    .sort((a, b) => (a.name === b.name ? a.arch.localeCompare(b.arch) : a.name.localeCompare(b.name)))
    .map((b) => ({ name: b.name, arch: b.arch, sha256: b.sha256, size: b.size }));
  return `${JSON.stringify({ schema: MANIFEST_SCHEMA_ID, version: m.version, binaries }, null, 2)}\n`;
}

export function findBinary(m: Manifest, name: BinaryName, arch: string): ManifestBinary | undefined {
  return m.binaries.find((b) => b.name === name && b.arch === arch);
}
