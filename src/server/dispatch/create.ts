// Picks the dispatcher for the store: in-process flights for the embedded SQLite store (one server),
// store-backed flights shared by replicas for PostgreSQL.
import { ClusterDispatcher } from "./cluster-dispatcher.ts";
import { isClusterStore } from "./cluster-store.ts";
import { Dispatcher, type DispatcherOptions } from "./dispatcher.ts";

export type AnyDispatcher = Pick<Dispatcher, "start" | "stop" | "kick" | "up" | "down" | "message" | "liveProfilers">;

export function createDispatcher(opts: DispatcherOptions): AnyDispatcher {
  return isClusterStore(opts.store) ? new ClusterDispatcher({ ...opts, cluster: opts.store.cluster }) : new Dispatcher(opts);
}
