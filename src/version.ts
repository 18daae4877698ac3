// Single source of the version reported by every role (boot line, /healthz, --version).
export const RUNNER_VERSION = "0.1.0";
