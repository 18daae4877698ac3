#!/usr/bin/env bash
# Standard Sigstore clients for the image-signature tests, taken from Debian 13 (trixie) on a
# Debian 12 machine: bookworm has no cosign, and its skopeo/podman are built with sigstore disabled
# ("Debian-local change"), so no bookworm client can check a sigstoreSigned policy.
#   cosign 2.x     needs only libc6 >= 2.34: runs on bookworm's libc as it is.
#   skopeo 1.18    sigstore enabled (containers/image 5.34); needs libc6 >= 2.38, so it runs under
#                  trixie's own loader and libraries from a private directory.
# Nothing is installed: apt here has its own sources list, lists and cache under $DIR/apt (the
# machine's apt configuration never sees trixie, so no package can be upgraded from it), and the
# .debs are unpacked with dpkg-deb into $DIR/root. Results (run from anywhere):
#   $DIR/bin/cosign   $DIR/bin/skopeo
# Idempotent: the packages' versions are recorded; a second run with the same versions does nothing
# but refresh the lists (Debian's signatures are checked by apt with the archive keyring).
set -euo pipefail
DIR=${RUNNER_TRIXIE_DIR:-/opt/runner-ci/trixie}
# skopeo's shared libraries (readelf NEEDED) and their dependencies, libc's loader included.
PACKAGES=(cosign skopeo libc6 libgcc-s1 libgpgme11t64 libassuan9 libgpg-error0 libsqlite3-0)

# The Debian mirror this machine's own bookworm packages come from (after its apt-get update).
MIRROR=$(apt-get indextargets --format '$(REPO_URI)' 'Codename: bookworm' 'Target-Of: deb' | head -1)
[ -n "$MIRROR" ] || { echo "trixie-tools: no Debian 12 (bookworm) source in apt to take the mirror from (apt-get update first?)" >&2; exit 1; }

mkdir -p "$DIR/apt/etc/preferences.d" "$DIR/apt/lists/partial" "$DIR/apt/cache/archives/partial" "$DIR/bin"
rm -rf "$DIR"/.new.* # left by an interrupted run
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR trixie main" >"$DIR/apt/etc/sources.list"
APT=(-o "Dir::Etc::SourceList=$DIR/apt/etc/sources.list" -o "Dir::Etc::SourceParts=-"
  -o "Dir::Etc::PreferencesParts=$DIR/apt/etc/preferences.d" -o "Dir::State::Lists=$DIR/apt/lists"
  -o "Dir::Cache=$DIR/apt/cache" -o "APT::Architecture=amd64" -o "APT::Architectures::=amd64"
  -o "APT::Sandbox::User=root")
apt-get "${APT[@]}" update -qq

want=$(apt-cache "${APT[@]}" show --no-all-versions "${PACKAGES[@]}" | awk '/^Package:/ {p = $2} /^Version:/ {print p, $2}')
if [ "$(cat "$DIR/root/.versions" 2>/dev/null)" != "$want" ]; then
  tmp=$(mktemp -d "$DIR/.new.XXXXXX")
  (cd "$tmp" && apt-get "${APT[@]}" download -qq "${PACKAGES[@]}")
  mkdir "$tmp/root"
  for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
  echo "$want" >"$tmp/root/.versions"
  rm -rf "$DIR/root" && mv "$tmp/root" "$DIR/root" && rm -rf "$tmp"
fi

cat >"$DIR/bin/skopeo" <<EOF
#!/bin/sh
# trixie's skopeo under trixie's loader and libraries (written by .ci/trixie-tools.sh)
L=$DIR/root/usr/lib/x86_64-linux-gnu
exec "\$L/ld-linux-x86-64.so.2" --library-path "\$L" --argv0 skopeo "$DIR/root/usr/bin/skopeo" "\$@"
EOF
chmod 755 "$DIR/bin/skopeo"
ln -sfn ../root/usr/bin/cosign "$DIR/bin/cosign"
"$DIR/bin/skopeo" --version >/dev/null
"$DIR/bin/cosign" version >/dev/null 2>&1
