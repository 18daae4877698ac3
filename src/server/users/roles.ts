// What each member role may do. Any member views Profiling and uses the capture form; only an owner
// or admin changes Settings (the Profiler opt-in, capture tokens).
import type { Role } from "../store/user-store.ts";

export function canManageSettings(role: Role): boolean {
  return role === "owner" || role === "admin";
}
