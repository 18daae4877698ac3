#!/bin/sh
# Reference `docker run` of the Profiler (Docker >= 23 or Podman >= 4: older engines do not know
# CAP_BPF / CAP_PERFMON). Every flag below is a deployment requirement; docs/install-docker.md says why.
# Before the first run:
#   - verify the image and run it by digest: bun image/sign-image.ts verify --pub runner-release.pub IMAGE
#   - load the AppArmor profile on the host when it enforces AppArmor: apparmor_parser -r apparmor/runner-profiler
#   - put the tenant's bootstrap token in a root-owned file readable by uid 65532 (install -m 0400 -o 65532 ...)
#   - write the target list (runner targets check targets.json)
# Environment of this script:
#   IMAGE        the image, by digest (default: the example name)
#   DOCKER       the engine's command (default docker; podman works the same)
#   APPARMOR     auto (default: our profile when the host enforces AppArmor, no option otherwise:
#                Docker refuses a profile on a host without AppArmor), on, or off
#   CA_FILE      a private enrolment CA (PEM); mounted and used when the file exists
#                (default /etc/runner/ca.pem)
set -eu
IMAGE=${IMAGE:-registry.example.com/runner/profiler@sha256:0000000000000000000000000000000000000000000000000000000000000000}
DOCKER=${DOCKER:-docker}
CA_FILE=${CA_FILE:-/etc/runner/ca.pem}
case "${APPARMOR:-auto}" in
  on) apparmor=1 ;;
  off) apparmor=0 ;;
  auto) apparmor=0; [ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null || true)" = Y ] && apparmor=1 ;;
  *) echo "docker-run.sh: APPARMOR must be auto, on or off" >&2; exit 2 ;;
esac
set --
[ "$apparmor" = 1 ] && set -- "$@" --security-opt apparmor=runner-profiler
[ -f "$CA_FILE" ] && set -- "$@" --volume "$CA_FILE:/etc/runner/ca.pem:ro" --env RUNNER_CA_FILE=/etc/runner/ca.pem
exec $DOCKER run --detach --name runner-profiler \
  --user 65532:65532 \
  --cap-drop ALL \
  --cap-add BPF --cap-add PERFMON --cap-add SYS_PTRACE --cap-add DAC_READ_SEARCH --cap-add SYS_ADMIN \
  --pid host \
  --volume /sys/kernel/tracing:/sys/kernel/tracing \
  --volume /sys/kernel/debug:/sys/kernel/debug \
  --volume runner-profiler-identity:/var/lib/runner \
  --volume /etc/runner/targets.json:/etc/runner/targets.json:ro \
  --volume /etc/runner/bootstrap-token:/run/secrets/runner_bootstrap_token:ro \
  --memory 512m \
  --restart unless-stopped \
  --env RUNNER_TENANT=acme \
  --env RUNNER_INSTANCE_ID="$(hostname)" \
  --env RUNNER_TUNNEL_URL=wss://runner.example.com:8443/tunnel \
  --env RUNNER_ENROLL_URL=https://runner.example.com/api/profiler/enroll \
  --env RUNNER_IDENTITY_DIR=/var/lib/runner \
  --env RUNNER_PROFILE_TARGETS_FILE=/etc/runner/targets.json \
  --env RUNNER_BOOTSTRAP_TOKEN_FILE=/run/secrets/runner_bootstrap_token \
  "$@" \
  "$IMAGE" profiler
