// Persistence of what the Profiler side produces: enrolled instances, pushed profiles, diffs, and
// the reads the web screens make of them. Part of `Store` (store.ts), same contract rules.
import type { ArtifactClass } from "../../protocol/enrol.ts";
import type { CaptureRecord } from "./types.ts";

export interface EnrolledInstance {
  orgId: number;
  orgName: string;
  profilerEnabled: boolean;
  instanceId: string;
  artifactClass: ArtifactClass;
  publicKey: string;
  enrolledAt: number;
}

export interface StoredDiff {
  requestId: string;
  /** The capture it was compared with (head of the prior version), or null with `note` saying why. */
  comparedWith: { requestId: string; version: string } | null;
  note: string;
  verdict: string | null;
  json: string | null;
  html: string | null;
  createdAt: number;
}

export type DiffSummary = Omit<StoredDiff, "json" | "html">;

/** An enrolled instance as Settings lists it. */
export interface InstanceSummary {
  instanceId: string;
  artifactClass: ArtifactClass;
  enrolledAt: number;
  /** Latest of its last enrolment and its last pushed profile. */
  lastSeenAt: number;
}

/** Which capture records the Profiling page asks for: newest first, optionally filtered, keyset-paged. */
export interface CaptureQuery {
  workload?: string;
  env?: string;
  /** Only records strictly older than this (created_at, request_id) position. */
  before?: { createdAt: number; requestId: string };
  limit: number;
}

export interface Baseline {
  head: CaptureRecord;
  replicates: CaptureRecord[];
}

export interface ProfilerStore {
  /**
   * Records (org, instance id) → public key. Same key again: idempotent (alreadyEnrolled). Another
   * key, or another artifact class, for an enrolled instance id: StoreError("conflict").
   */
  enrolInstance(orgId: number, instanceId: string, artifactClass: ArtifactClass, publicKey: string, now?: number): Promise<{ alreadyEnrolled: boolean }>;
  findInstance(orgName: string, instanceId: string): Promise<EnrolledInstance | null>;

  saveProfile(requestId: string, profileGz: Uint8Array, instanceId: string, now?: number): Promise<void>;
  getProfile(requestId: string): Promise<Uint8Array | null>;
  saveDiff(diff: StoredDiff): Promise<void>;
  getDiff(requestId: string): Promise<StoredDiff | null>;
  /** The diffs stored under these request ids, without their JSON and HTML (the Profiling list's verdict column). */
  listDiffSummaries(requestIds: readonly string[]): Promise<DiffSummary[]>;

  /** The baseline rule (baseline-rule.ts): latest pushed head of a version other than `version` created before `before`, with that version's pushed replicates. */
  findBaseline(orgName: string, workload: string, env: string, version: string, before: number): Promise<Baseline | null>;
  /** Pushed captures (head and replicates) of one version, oldest first. */
  listPushedOfVersion(orgName: string, workload: string, env: string, version: string): Promise<CaptureRecord[]>;

  /** Enrolled instances of an org, most recently seen first. */
  listInstances(orgName: string): Promise<InstanceSummary[]>;
  /** One page of an org's capture records, newest first. */
  queryCaptures(orgName: string, q: CaptureQuery): Promise<CaptureRecord[]>;
  /** Distinct workloads and envs an org has records for (the Profiling page's filters). */
  captureFacets(orgName: string): Promise<{ workloads: string[]; envs: string[] }>;
  /** When a requester name last queued a request in an org at or after `since` and before `until` (null: never). */
  lastRequestBy(orgName: string, requester: string, since: number, until: number | null): Promise<number | null>;
}
