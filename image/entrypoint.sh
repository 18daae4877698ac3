#!/bin/sh
# Profiler container entrypoint. Some engines (Podman; Docker with --user and certain settings)
# hand the --cap-add capabilities to a non-root user as ambient/inheritable capabilities. The
# supervisor must hold none (it refuses to boot otherwise): drop the ambient and inheritable sets
# so that runner execs with nothing, while the five stay in the bounding set for ptop's file
# capabilities. `setpriv` is util-linux, present in every Debian base.
set -eu
if command -v setpriv >/dev/null 2>&1; then
  exec setpriv --ambient-caps=-all --inh-caps=-all -- /opt/runner/runner "$@"
fi
exec /opt/runner/runner "$@"
