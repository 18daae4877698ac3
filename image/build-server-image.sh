#!/usr/bin/env bash
# The control plane's image (`runner server`): the runner executable and the C library it links,
# on an empty base. No shell, no package manager, nothing setuid; user 65532. Built with buildah
# (no Docker engine, no registry needed); push it where your cluster pulls from.
#
#   image/build-server-image.sh [RUNNER] [TAG]      defaults: dist/runner, localhost/runner-server:<version>
#
# The image's architecture is the one of RUNNER and of this host (the libraries come from here):
# build the arm64 image on an arm64 host. STORAGE_DRIVER=vfs works where overlay does not.
set -euo pipefail
cd "$(dirname "$0")/.."

runner=${1:-dist/runner}
[ -x "$runner" ] || { echo "build-server-image: $runner is not an executable (npm run build makes dist/runner)" >&2; exit 1; }
version=$("$runner" --version | awk '{print $NF}')
tag=${2:-localhost/runner-server:$version}

ctr=$(buildah from scratch)
trap 'buildah rm "$ctr" >/dev/null 2>&1 || true' EXIT
root=$(buildah mount "$ctr")

install -d -m 0755 "$root/opt/runner" "$root/etc" "$root/etc/runner"
install -d -m 1777 "$root/tmp"
install -m 0755 "$runner" "$root/opt/runner/runner"
# The dynamic loader and the libraries runner links (libc, libm, libpthread, libdl), where the
# loader looks for them by default.
for lib in $(ldd "$runner" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'); do
  cp -L --parents "$lib" "$root/"
done
printf 'runner:x:65532:65532:runner server:/nonexistent:/nonexistent\n' >"$root/etc/passwd"
printf 'runner:x:65532:\n' >"$root/etc/group"

buildah umount "$ctr" >/dev/null
buildah config \
  --user 65532:65532 \
  --entrypoint '["/opt/runner/runner"]' \
  --cmd '["server", "--help"]' \
  --port 8080 --port 8443 \
  --label org.opencontainers.image.title=runner-server \
  --label "org.opencontainers.image.description=runner control plane: capture API, app, enrolment, tunnel" \
  --label "org.opencontainers.image.version=$version" \
  "$ctr"
buildah commit --quiet "$ctr" "$tag" >/dev/null
echo "$tag"
