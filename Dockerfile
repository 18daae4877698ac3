# The Profiler image (multi-arch: amd64, arm64). Build it with image/build.sh, which compiles runner
# and ptop for both architectures, signs the release manifest and lays out the context:
#   <context>/<arch>/runner, <context>/<arch>/ptop, <context>/release-manifest.json(+.sigstore.json)
# BASE defaults to the debootstrap base image/build.sh makes locally (no registry needed); with a
# registry, BASE=debian:bookworm-slim works the same. Needs Docker >= 23 / Podman >= 4 at run time
# (older engines do not know CAP_BPF / CAP_PERFMON).
ARG BASE=localhost/runner-base:bookworm
FROM ${BASE}
ARG TARGETARCH
ARG VERSION=dev

LABEL org.opencontainers.image.title="runner-profiler" \
      org.opencontainers.image.description="runner Profiler: supervisor (no capabilities) + ptop collector (five file capabilities)" \
      org.opencontainers.image.version="${VERSION}"

# setcap (libcap2-bin) is needed only for the RUN below; libelf/zlib serve a dynamically linked ptop.
# The non-root user 65532 owns nothing in /opt/runner: it can neither replace ptop nor the manifest.
RUN set -eu; \
    if ! command -v setcap >/dev/null || ! ldconfig -p | grep -q libelf.so.1; then \
      apt-get update && apt-get install -y --no-install-recommends libcap2-bin libelf1 zlib1g && rm -rf /var/lib/apt/lists/*; \
    fi; \
    groupadd --system --gid 65532 runner; \
    useradd --system --uid 65532 --gid 65532 --home-dir /nonexistent --shell /usr/sbin/nologin runner; \
    install -d -o root -g root -m 0755 /opt/runner; \
    install -d -o 65532 -g 65532 -m 0700 /var/lib/runner

COPY ${TARGETARCH}/runner ${TARGETARCH}/ptop /opt/runner/
COPY release-manifest.json release-manifest.sigstore.json /opt/runner/

# A COPY does not carry the security.capability xattr: set it here, in the final stage, and on ptop
# only. Exactly the five, effective (+ep): ptop checks CapEff itself and drops them all after setup.
# ptop is executable by the Profiler's group only (root:65532 0750): whoever runs it may measure any
# process they list. chown clears file capabilities, so it comes before setcap.
# Then the base is stripped to what the Profiler runs: no setuid/setgid bit anywhere (no_new_privs
# stays off for ptop's file capabilities, so a setuid program would work as designed), and no shell,
# interpreter or package manager (the entrypoint is setpriv, exec form; nothing here runs a script).
# test/live/image-build.test.ts lists what must be absent. The shell goes last: this RUN uses it.
RUN set -eu; \
    chown root:root /opt/runner/*; \
    chown root:65532 /opt/runner/ptop; \
    chmod 0755 /opt/runner/runner; \
    chmod 0750 /opt/runner/ptop; \
    chmod 0644 /opt/runner/release-manifest.json /opt/runner/release-manifest.sigstore.json; \
    setcap cap_bpf,cap_perfmon,cap_sys_ptrace,cap_dac_read_search,cap_sys_admin+ep /opt/runner/ptop; \
    getcap /opt/runner/ptop; \
    find / -xdev -type f -perm /6000 -exec chmod ug-s {} +; \
    rm -rf /usr/bin/apt /usr/bin/apt-* /usr/bin/dpkg /usr/bin/dpkg-* /usr/lib/apt /usr/lib/dpkg /var/lib/apt /var/lib/dpkg \
      /var/cache/apt /var/cache/debconf /etc/apt /usr/bin/perl /usr/bin/perl5* /usr/lib/*/perl-base /usr/share/perl5 \
      /usr/bin/bash /usr/bin/rbash /usr/bin/dash /usr/bin/sh /bin/sh

ENV RUNNER_COLLECTOR_PATH=/opt/runner/ptop \
    RUNNER_IDENTITY_DIR=/var/lib/runner \
    PATH=/opt/runner:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
USER 65532:65532
VOLUME ["/var/lib/runner"]
# Some engines (Podman; Docker with --user in some set-ups) hand the --cap-add capabilities to a
# non-root user as ambient/inheritable capabilities, and the supervisor must hold none: setpriv
# (util-linux) clears both sets and execs runner; the five stay in the bounding set for ptop.
# The HEALTHCHECK needs the Docker image format (image/build.sh builds with --format docker): OCI
# image configs have no healthcheck. doctor exits non-zero when a requirement fails (it never takes
# the identity lock); through setpriv too, so ambient capabilities are cleared for it as well.
HEALTHCHECK --interval=60s --timeout=20s --start-period=30s --retries=3 \
  CMD ["/usr/bin/setpriv", "--ambient-caps=-all", "--inh-caps=-all", "--", "/opt/runner/runner", "doctor"]
ENTRYPOINT ["/usr/bin/setpriv", "--ambient-caps=-all", "--inh-caps=-all", "--", "/opt/runner/runner"]
CMD ["profiler"]
