/**
 * The cores this process may use: `availableParallelism()` (the cores its affinity allows), lowered
 * by a CPU quota. A container limited to one core of a machine's two (`docker run --cpus 1`) sees
 * both cores in `availableParallelism()`, in `os.cpus()` and in `/proc/loadavg`, and the kernel
 * throttles the process to its quota instead: a worker started there for the "free" second core
 * only takes this thread's time, with its start and its own compilation of the code on top.
 *
 * The quota is the cgroup's: version 2's `cpu.max` ("QUOTA PERIOD", or "max PERIOD" for none) or
 * version 1's `cpu.cfs_quota_us` and `cpu.cfs_period_us` (a quota of -1 for none), in microseconds
 * per period. A limit set on any cgroup above this process's applies too, so every level from the
 * process's own cgroup (`/proc/self/cgroup`) up to the root of the hierarchy is read, and the
 * smallest quota wins. Inside a container the process's path often names the host's hierarchy
 * while the container sees its own cgroup mounted as the root: the levels that do not exist are
 * skipped, and the root, the container's own, is read. A file that is absent, says "max" or holds
 * anything but positive integers limits nothing.
 */

import { closeSync, openSync, readSync } from "node:fs";
import { availableParallelism } from "node:os";
import { posix } from "node:path";

/** Where the cgroup files are read: the process's cgroup list and the hierarchies' mount points. */
export interface CgroupPaths {
  /** `/proc/self/cgroup`: lines "ID:CONTROLLERS:PATH" ("0::PATH" for version 2). */
  procCgroup: string;
  /** Where version 2's unified hierarchy is mounted. */
  unified: string;
  /** Where version 1's `cpu` controller may be mounted (the first that holds the files is read). */
  cpuV1: readonly string[];
}

const SYSTEM_PATHS: CgroupPaths = {
  procCgroup: "/proc/self/cgroup",
  unified: "/sys/fs/cgroup",
  cpuV1: ["/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpuacct,cpu"],
};

/** A cgroup file is one short line; more than this is not one, and is not read further. */
const MAX_FILE_BYTES = 4096;
/**
 * The process's cgroup list is read up to this: a line per hierarchy (a dozen with version 1), each
 * path some hundreds of bytes in nested containers, past a small file's limit.
 */
const MAX_LIST_BYTES = 64 * 1024;
/** Levels read above the process's cgroup at most: a real hierarchy is a handful deep. */
const MAX_LEVELS = 32;

/** The first `limit` bytes of a file at most, or undefined when it cannot be read. */
function readStart(path: string, limit: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(limit);
    // A file of the kernel's may answer in parts: read until its end or the limit.
    let n = 0;
    while (n < limit) {
      const got = readSync(fd, buffer, n, limit - n, null);
      if (got === 0) break;
      n += got;
    }
    return buffer.subarray(0, n);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The start of a small file as text, or undefined when it cannot be read. */
function readSmall(path: string): string | undefined {
  return readStart(path, MAX_FILE_BYTES)?.toString("latin1");
}

/**
 * The process's cgroup list, its whole lines: a list cut at `MAX_LIST_BYTES` ends in part of a
 * line, whose path would name another cgroup. UTF-8, as the kernel writes the cgroups' names and
 * as the paths made of them are opened again.
 */
function readCgroupList(path: string): string | undefined {
  const bytes = readStart(path, MAX_LIST_BYTES);
  if (bytes === undefined) return undefined;
  return (bytes.length < MAX_LIST_BYTES ? bytes : bytes.subarray(0, bytes.lastIndexOf(0x0a) + 1)).toString("utf8");
}

/** A positive integer written in decimal, else undefined (a quota of -1 or "max" included). */
function positiveInteger(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,15}$/.test(text)) return undefined;
  const n = Number(text);
  return n > 0 ? n : undefined;
}

/** The cores a level's quota allows (quota / period), or undefined when it sets none. */
function levelCores(quotaText: string | undefined, periodText: string | undefined): number | undefined {
  const quota = positiveInteger(quotaText?.trim());
  const period = positiveInteger(periodText?.trim());
  return quota !== undefined && period !== undefined ? quota / period : undefined;
}

/** Version 2's `cpu.max` in `dir`: "QUOTA PERIOD". */
function unifiedCores(dir: string): number | undefined {
  const fields = readSmall(posix.join(dir, "cpu.max"))?.trim().split(/\s+/);
  return fields?.length === 2 ? levelCores(fields[0], fields[1]) : undefined;
}

/** Version 1's `cpu.cfs_quota_us` and `cpu.cfs_period_us` in `dir`. */
function cfsCores(dir: string): number | undefined {
  return levelCores(readSmall(posix.join(dir, "cpu.cfs_quota_us")), readSmall(posix.join(dir, "cpu.cfs_period_us")));
}

/**
 * `path` and every folder above it up to "/", nearest first (at most `MAX_LEVELS` + 1); none for a
 * path that climbs above "/". The kernel writes ".." for each level by which the process's cgroup
 * lies outside the root of its cgroup namespace, the root that is mounted: then none of the
 * cgroups above the process is under the mount, and the folders the path names without its ".."
 * are other cgroups (a container's own, or its children), whose quotas are not this process's.
 */
function levels(path: string): string[] {
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) return [];
  const out: string[] = [];
  for (let n = Math.min(parts.length, MAX_LEVELS); n >= 0; n--) out.push(`/${parts.slice(0, n).join("/")}`);
  return out;
}

/** The smallest of the quotas `read` finds at each level of `path` under `mount`. */
function smallestQuota(mount: string, path: string, read: (dir: string) => number | undefined): number | undefined {
  let smallest: number | undefined;
  for (const level of levels(path)) {
    const cores = read(posix.join(mount, level));
    if (cores !== undefined && (smallest === undefined || cores < smallest)) smallest = cores;
  }
  return smallest;
}

/**
 * The cores the CPU quota of this process's cgroups allows (a fraction, e.g. 1.5), or undefined
 * when no quota is set or none can be read (no cgroups, another system than Linux).
 */
export function quotaCores(paths: CgroupPaths = SYSTEM_PATHS): number | undefined {
  const list = readCgroupList(paths.procCgroup);
  if (list === undefined) return undefined;
  let smallest: number | undefined;
  const take = (cores: number | undefined) => {
    if (cores !== undefined && (smallest === undefined || cores < smallest)) smallest = cores;
  };
  for (const line of list.split("\n")) {
    const match = /^\d+:([^:]*):(\/.*)$/.exec(line);
    if (!match) continue;
    const [, controllers, path] = match;
    if (controllers === "") take(smallestQuota(paths.unified, path!, unifiedCores));
    else if (controllers!.split(",").includes("cpu")) {
      const mount = paths.cpuV1.find((dir) => readSmall(posix.join(dir, "cpu.cfs_period_us")) !== undefined);
      if (mount !== undefined) take(smallestQuota(mount, path!, cfsCores));
    }
  }
  return smallest;
}

/**
 * The whole cores this process may keep busy: `cores` (the affinity's) or the quota's, the fewer,
 * and at least one. A quota's fraction of a core is not counted: a thread started for it would
 * share a core with this one.
 */
export function usableCores(cores = availableParallelism(), quota = quotaCores()): number {
  const limit = quota === undefined ? cores : Math.min(cores, Math.floor(quota));
  return Math.max(1, limit);
}

let cached: number | undefined;

/** `usableCores()` of this process, read once: a quota changed while a command runs is not followed. */
export function processCores(): number {
  cached ??= usableCores();
  return cached;
}
