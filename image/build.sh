#!/usr/bin/env bash
# Builds the Profiler release: runner and ptop for amd64 and arm64, the signed release manifest,
# and the image with Debian's container tooling (buildah), from a debootstrap base (no registry).
#
#   image/build.sh [--out DIR] [--version V] [--key RELEASE_KEY.pem | --dev-key] [--images "amd64 arm64"]
#                  [--base IMAGE] [--tag NAME] [--no-image] [--push REGISTRY/REPO:TAG [--insecure-registry]]
#
# --key        the release private key (ECDSA P-256 PKCS#8). Its public half is compiled into runner,
#              which then refuses to boot unless runner and ptop match the manifest signed by it.
# --dev-key    generate a throwaway key in OUT (development and CI; never publish such an image).
# --images     architectures to build images for (default: the host's). Binaries and the manifest
#              always cover amd64 and arm64; a foreign-arch image needs qemu-user-static + binfmt.
# --base       base image (default localhost/runner-base:bookworm, made here with debootstrap when
#              missing; with a registry, debian:bookworm-slim works the same).
# --no-image   stop after binaries + signed manifest (the build context in OUT/context).
# --push       push the manifest list and its images (Docker format: the HEALTHCHECK survives) and
#              sign the list and every platform manifest with the same release key
#              (image/sign-image.ts, cosign/Sigstore format). --insecure-registry: plain HTTP.
# Always writes OUT/runner-release.pub: the public key to publish beside the release; it verifies
# both the release manifest inside the image and the image signature.
# arm64 ptop always runs under qemu-user-static here (with the cross sysroot); the arm64 runner is
# run (`--version`) inside the arm64 image when one is built: Bun does not start under qemu with
# the cross-compiler's sysroot (it spins), but does with a real Debian arm64 root.
# Env: BUILDAH_ISOLATION (default chroot: works without cgroup delegation), STORAGE_DRIVER (vfs).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUN="$ROOT/node_modules/.bin/bun"
OUT="$ROOT/dist/image"
VERSION=$(sed -n 's/^export const RUNNER_VERSION = "\(.*\)";/\1/p' "$ROOT/src/version.ts")
KEY=""
DEV_KEY=0
HOST_ARCH=$(dpkg --print-architecture 2>/dev/null || uname -m | sed 's/x86_64/amd64/;s/aarch64/arm64/')
IMAGES="$HOST_ARCH"
BASE="localhost/runner-base:bookworm"
TAG=""
BUILD_IMAGE=1
PUSH=""
INSECURE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT=$2; shift 2 ;;
    --version) VERSION=$2; shift 2 ;;
    --key) KEY=$2; shift 2 ;;
    --dev-key) DEV_KEY=1; shift ;;
    --images) IMAGES=$2; shift 2 ;;
    --base) BASE=$2; shift 2 ;;
    --tag) TAG=$2; shift 2 ;;
    --no-image) BUILD_IMAGE=0; shift ;;
    --push) PUSH=$2; shift 2 ;;
    --insecure-registry) INSECURE=1; shift ;;
    --no-qemu-runner) shift ;;  # accepted for compatibility: the arm64 runner is checked in its image
    *) echo "build.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
TAG=${TAG:-localhost/runner-profiler:$VERSION}
export STORAGE_DRIVER=${STORAGE_DRIVER:-vfs}
export BUILDAH_ISOLATION=${BUILDAH_ISOLATION:-chroot}
say() { printf 'build.sh: %s\n' "$*" >&2; }

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
CTX="$OUT/context"
rm -rf "$CTX"
mkdir -p "$CTX/amd64" "$CTX/arm64"

if [ -z "$KEY" ]; then
  [ "$DEV_KEY" = 1 ] || { say "give --key RELEASE_KEY.pem (or --dev-key for a throwaway development key)"; exit 2; }
  "$BUN" "$ROOT/image/sign-manifest.ts" keygen "$OUT/dev-key" >&2
  KEY="$OUT/dev-key/release-key.pem"
  say "DEVELOPMENT KEY $KEY: this image verifies against a throwaway key, never publish it"
fi
"$BUN" -e 'const c=require("node:crypto");process.stdout.write(c.createPublicKey(c.createPrivateKey(require("node:fs").readFileSync(process.argv[1],"utf8"))).export({type:"spki",format:"pem"}))' "$KEY" > "$OUT/runner-release.pub"
PUB_B64=$(base64 -w0 < "$OUT/runner-release.pub")

# 1. runner for both arches, with the release public key compiled in. Same flags as
#    scripts/build.ts (--splitting: the lazily loaded roles stay out of start-up; the diff's worker
#    as a second entry point) plus the key.
for arch in amd64 arm64; do
  target=bun-linux-$( [ $arch = amd64 ] && echo x64 || echo arm64 )
  say "runner $arch ($target)"
  (cd "$ROOT" && "$BUN" build --compile --bytecode --format=esm --splitting --minify-syntax --sourcemap=none \
     --target "$target" --define "RUNNER_RELEASE_PUBLIC_KEY=\"$PUB_B64\"" src/cli.ts src/server/off-loop/worker.ts --outfile "$CTX/$arch/runner" >&2)
done

# 2. ptop for both arches, each in its own build directory (never the shared native/ptop/build).
for arch in amd64 arm64; do
  say "ptop $arch"
  make -s -C "$ROOT/native/ptop" ARCH=$( [ $arch = amd64 ] && echo x86 || echo arm64 ) BUILD="$OUT/ptop-$arch" >&2
  cp "$OUT/ptop-$arch/ptop" "$CTX/$arch/ptop"
done

# 3. Every binary is what its name says: `file` for the ELF machine, qemu for the arm64 ones.
for arch in amd64 arm64; do
  want=$( [ $arch = amd64 ] && echo "x86-64" || echo "ARM aarch64" )
  for bin in runner ptop; do
    file -b "$CTX/$arch/$bin" | grep -q "$want" || { say "$arch/$bin is not $want: $(file -b "$CTX/$arch/$bin")"; exit 1; }
  done
done
if command -v qemu-aarch64-static >/dev/null; then
  # ptop --help prints its usage and exits 2; anything else (exec format error: 126/127...) fails.
  rc=0; qemu-aarch64-static -L /usr/aarch64-linux-gnu "$CTX/arm64/ptop" --help >/dev/null 2>&1 </dev/null || rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 2 ] || { say "arm64 ptop does not run under qemu (exit $rc)"; exit 1; }
  say "arm64 ptop runs under qemu"
else
  say "qemu-user-static not installed: arm64 binaries checked with file only"
fi

# 4. The signed manifest of all four binaries.
"$BUN" "$ROOT/image/sign-manifest.ts" sign --key "$KEY" --version "$VERSION" --out "$CTX" \
  runner/amd64="$CTX/amd64/runner" ptop/amd64="$CTX/amd64/ptop" \
  runner/arm64="$CTX/arm64/runner" ptop/arm64="$CTX/arm64/ptop" >&2
cp "$ROOT/Dockerfile" "$CTX/Dockerfile"
[ "$BUILD_IMAGE" = 1 ] || { say "context ready in $CTX"; exit 0; }

# 5. Base image from debootstrap, once per arch, then one image per arch and a manifest list.
base_for() {
  local arch=$1 ref="$BASE"
  [ "$arch" = "$HOST_ARCH" ] || ref="$BASE-$arch"
  if ! podman --storage-driver "$STORAGE_DRIVER" image exists "$ref"; then
    [[ "$BASE" == localhost/* ]] || { echo "$BASE"; return; }
    say "debootstrap bookworm ($arch) for $ref"
    local rootfs="$OUT/rootfs-$arch"
    rm -rf "$rootfs"
    debootstrap --arch "$arch" --variant=minbase --include=libcap2-bin,libelf1,zlib1g \
      bookworm "$rootfs" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >&2
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    tar -C "$rootfs" -c . | podman --storage-driver "$STORAGE_DRIVER" import --arch "$arch" - "$ref" >&2
    rm -rf "$rootfs"
  fi
  echo "$ref"
}
buildah --storage-driver "$STORAGE_DRIVER" manifest rm "$TAG" >/dev/null 2>&1 || true
buildah --storage-driver "$STORAGE_DRIVER" manifest create "$TAG" >/dev/null
for arch in $IMAGES; do
  base=$(base_for "$arch")
  say "image $TAG ($arch) from $base"
  buildah --storage-driver "$STORAGE_DRIVER" bud --format docker --isolation "$BUILDAH_ISOLATION" --platform "linux/$arch" \
    --build-arg BASE="$base" --build-arg TARGETARCH="$arch" --build-arg VERSION="$VERSION" \
    -t "$TAG-$arch" -f "$CTX/Dockerfile" "$CTX" >&2
  buildah --storage-driver "$STORAGE_DRIVER" manifest add "$TAG" "$TAG-$arch" >/dev/null
  # The image's own runner, on its own architecture (qemu binfmt for a foreign one).
  v=$(podman --storage-driver "$STORAGE_DRIVER" --runtime runc --cgroup-manager cgroupfs run --rm --arch "$arch" \
        --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 --entrypoint /opt/runner/runner "$TAG-$arch" --version) \
    || { say "runner in the $arch image does not run"; exit 1; }
  [ "$v" = "$VERSION" ] || { say "runner in the $arch image says '$v', expected $VERSION"; exit 1; }
  say "runner in the $arch image runs (version $v)"
done
say "built $TAG for: $IMAGES"
if [ -n "$PUSH" ]; then
  tls=(); [ "$INSECURE" = 1 ] && tls=(--tls-verify=false)
  buildah --storage-driver "$STORAGE_DRIVER" manifest push --all --format v2s2 "${tls[@]}" "$TAG" "docker://$PUSH" >&2
  insecure=(); [ "$INSECURE" = 1 ] && insecure=(--insecure)
  "$BUN" "$ROOT/image/sign-image.ts" sign --key "$KEY" "${insecure[@]}" "$PUSH" >&2
  "$BUN" "$ROOT/image/sign-image.ts" verify --pub "$OUT/runner-release.pub" "${insecure[@]}" "$PUSH" >&2
fi
echo "$TAG"
