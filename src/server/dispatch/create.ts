// Picks the dispatcher for the store: in-process flights for the embedded SQLite store (one server),
// store-backed flights shared by replicas for PostgreSQL.
import { ClusterDispatcher } from "./cluster-dispatcher.ts";
import type { ClusterDispatchStore } from "./cluster-store.ts";
import { Dispatcher, type DispatchOptions } from "./dispatcher.ts";
import type { LocalDispatchStore } from "./local-store.ts";

export type AnyDispatcher = Pick<Dispatcher, "start" | "stop" | "kick" | "up" | "down" | "message" | "liveProfilers">;

/** A store a server can dispatch on: PostgreSQL's carries its cluster operations, SQLite's the local queue's. */
export type DispatchingStore = { readonly cluster: ClusterDispatchStore } | LocalDispatchStore;

export function createDispatcher(opts: DispatchOptions & { store: DispatchingStore }): AnyDispatcher {
  const { store, ...rest } = opts;
  return "cluster" in store ? new ClusterDispatcher({ ...rest, cluster: store.cluster }) : new Dispatcher({ ...rest, store });
}
