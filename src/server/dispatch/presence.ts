// Which enrolled Profilers of an organization hold a tunnel now, for Settings (connected or
// offline beside "last seen"). With PostgreSQL the replicas' shared tunnel table answers for every
// replica; with SQLite (one server) the in-process dispatcher does, and a server that runs no
// tunnel listener has none connected.
import type { Store } from "../store/store.ts";
import type { ClusterDispatchStore } from "./cluster-store.ts";

export type Presence = (orgName: string) => Promise<ReadonlySet<string>>;

/** `local`: the dispatcher of this server's tunnel listener, once it runs (null without one). */
export function presence(store: Store, local: () => { liveProfilers(orgName: string): string[] } | null): Presence {
  const cluster = (store as Partial<{ cluster: ClusterDispatchStore }>).cluster;
  return async (orgName) => new Set(cluster ? await cluster.connectedProfilers(orgName) : (local()?.liveProfilers(orgName) ?? []));
}
