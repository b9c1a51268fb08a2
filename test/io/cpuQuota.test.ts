/**
 * The cores a CPU quota leaves this process (`io/cpuQuota.ts`), read from fake cgroup files: the
 * smallest quota of the process's cgroup and those above it, version 2 and version 1, a
 * container's own cgroup mounted as the root, and every file that is absent, unlimited or not
 * made of positive integers limiting nothing. Then the free cores counted against it.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CgroupPaths, quotaCores, usableCores } from "../../server/src/io/cpuQuota";
import { freeCoresNow, measureFreeCores } from "../../server/src/io/freeCores";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cpu-quota-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Writes `files` (paths relative to the fake root) and answers the paths `quotaCores` reads. */
function fakeSystem(files: Record<string, string>): CgroupPaths {
  for (const [path, text] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(join(full, ".."), { recursive: true });
    writeFileSync(full, text);
  }
  return { procCgroup: join(dir, "proc-self-cgroup"), unified: join(dir, "unified"), cpuV1: [join(dir, "cpu,cpuacct"), join(dir, "cpu")] };
}

describe("quotaCores, cgroup version 2", () => {
  it("reads cpu.max of the process's cgroup and of every cgroup above it, the smallest winning", () => {
    const paths = fakeSystem({
      "proc-self-cgroup": "0::/user.slice/app.scope\n",
      "unified/user.slice/app.scope/cpu.max": "150000 100000\n",
      "unified/user.slice/cpu.max": "max 100000\n",
    });
    expect(quotaCores(paths)).toBe(1.5);
    // A tighter limit on a parent applies to its children.
    writeFileSync(join(dir, "unified/user.slice/cpu.max"), "50000 100000\n");
    expect(quotaCores(paths)).toBe(0.5);
  });

  it("reads the container's own cgroup, mounted as the root, when the process's path names the host's", () => {
    const paths = fakeSystem({ "proc-self-cgroup": "0::/system.slice/docker-0123abcd.scope\n", "unified/cpu.max": "100000 100000\n" });
    expect(quotaCores(paths)).toBe(1);
  });

  it("takes no limit from an unlimited, absent or garbled cpu.max", () => {
    for (const text of [
      "max 100000",
      "max",
      "",
      "100000",
      "abc 100000",
      "0 100000",
      "100000 0",
      "-1 100000",
      "1e5 100000",
      "100000 100000 7",
      "9".repeat(20000),
    ]) {
      const paths = fakeSystem({ "proc-self-cgroup": "0::/a\n", "unified/a/cpu.max": text });
      expect(quotaCores(paths), JSON.stringify(text.slice(0, 30))).toBeUndefined();
    }
    expect(quotaCores(fakeSystem({ "proc-self-cgroup": "0::/a\n" }))).toBeUndefined();
  });

  it("reads a cgroup list longer than a small file's 4 KiB, and a cgroup whose name is not ASCII", () => {
    // Version 1's dozen lines with the long paths of nested containers, the cpu controller's last.
    const deep = `/docker/${"d".repeat(64)}/kubepods.slice/kubepods-burstable.slice/${"p".repeat(240)}.slice`;
    const others = ["pids", "blkio", "freezer", "devices", "memory", "cpuset", "perf_event", "hugetlb", "net_cls", "rdma", "misc"];
    const list = `${others.map((name, i) => `${13 - i}:${name}:${deep}\n`).join("")}2:cpu,cpuacct:${deep}/app\n`;
    expect(list.length).toBeGreaterThan(4096);
    const paths = fakeSystem({
      "proc-self-cgroup": list,
      "cpu/cpu.cfs_quota_us": "-1\n",
      "cpu/cpu.cfs_period_us": "100000\n",
      [`cpu${deep}/app/cpu.cfs_quota_us`]: "150000\n",
      [`cpu${deep}/app/cpu.cfs_period_us`]: "100000\n",
      "unified/caf\u00e9.slice/cpu.max": "50000 100000\n",
    });
    expect(quotaCores(paths)).toBe(1.5);
    writeFileSync(paths.procCgroup, "0::/caf\u00e9.slice\n");
    expect(quotaCores(paths)).toBe(0.5);
  });

  it("reads no line a list longer than its limit cuts, whose path would name another cgroup", () => {
    const paths = fakeSystem({ "unified/ab/cpu.max": "100000 100000\n", "unified/abc/cpu.max": "300000 100000\n" });
    // One long line before "0::/abc": the list's 64 KiB end after "0::/ab", a part that names another cgroup.
    const padded = (bytes: number) => `9:name=pad:/${"p".repeat(bytes - 13)}\n`;
    writeFileSync(paths.procCgroup, `${padded(64 * 1024 - 6)}0::/abc\n`);
    expect(quotaCores(paths)).toBeUndefined();
    // Whole within the limit, the line is read.
    writeFileSync(paths.procCgroup, `${padded(64 * 1024 - 8)}0::/abc\n`);
    expect(quotaCores(paths)).toBe(3);
  });

  it("answers nothing without the process's cgroup list, or from a list that is not one", () => {
    expect(quotaCores(fakeSystem({ "unified/cpu.max": "100000 100000" }))).toBeUndefined();
    expect(quotaCores(fakeSystem({ "proc-self-cgroup": "garbage\n0:/no-colon\n", "unified/cpu.max": "100000 100000" }))).toBeUndefined();
  });

  it("reads no folder for a cgroup outside the namespace's root, which the path climbs to", () => {
    // The process's cgroup is two levels above the mounted root's and then "outside": neither the
    // folder above the mount, nor the mounted root (not above the process), nor the root's own
    // child of that name (another cgroup) holds this process's quota.
    const paths = fakeSystem({
      "proc-self-cgroup": "0::/../../outside\n",
      "cpu.max": "100000 100000",
      "unified/cpu.max": "200000 100000",
      "unified/outside/cpu.max": "300000 100000",
    });
    expect(quotaCores(paths)).toBeUndefined();
    // Version 1 likewise; another hierarchy's line still counts.
    const v1 = fakeSystem({
      "proc-self-cgroup": "4:cpu,cpuacct:/../sibling\n0::/\n",
      "unified/cpu.max": "200000 100000",
      "cpu/cpu.cfs_quota_us": "100000\n",
      "cpu/cpu.cfs_period_us": "100000\n",
      "cpu/sibling/cpu.cfs_quota_us": "50000\n",
      "cpu/sibling/cpu.cfs_period_us": "100000\n",
    });
    expect(quotaCores(v1)).toBe(2);
  });
});

describe("quotaCores, cgroup version 1", () => {
  it("reads cpu.cfs_quota_us over cpu.cfs_period_us where the cpu controller is mounted", () => {
    const paths = fakeSystem({
      "proc-self-cgroup": "12:pids:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n",
      "cpu/cpu.cfs_quota_us": "-1\n",
      "cpu/cpu.cfs_period_us": "100000\n",
      "cpu/docker/abc/cpu.cfs_quota_us": "250000\n",
      "cpu/docker/abc/cpu.cfs_period_us": "100000\n",
    });
    expect(quotaCores(paths)).toBe(2.5);
  });

  it("takes no limit from a quota of -1, a missing period or garbage", () => {
    for (const [quota, period] of [
      ["-1", "100000"],
      ["200000", ""],
      ["lots", "100000"],
      ["200000", "0"],
    ]) {
      const paths = fakeSystem({ "proc-self-cgroup": "3:cpu:/\n", "cpu/cpu.cfs_quota_us": quota!, "cpu/cpu.cfs_period_us": period! });
      expect(quotaCores(paths), `${quota} / ${period}`).toBeUndefined();
    }
    // No mount holds the controller's files.
    expect(quotaCores(fakeSystem({ "proc-self-cgroup": "3:cpu:/\n" }))).toBeUndefined();
  });
});

describe("usableCores", () => {
  it("is the affinity's cores or the quota's whole cores, the fewer, and at least one", () => {
    expect(usableCores(2, undefined)).toBe(2);
    expect(usableCores(8, 2.5)).toBe(2);
    expect(usableCores(4, 16)).toBe(4);
    expect(usableCores(2, 1)).toBe(1);
    expect(usableCores(2, 0.25)).toBe(1);
  });
});

describe("free cores under a quota", () => {
  it("leaves no core free for a worker where the quota allows one core, whatever the machine's counters say", () => {
    const loadavg = join(dir, "loadavg");
    writeFileSync(loadavg, "0.10 0.20 0.30 1/300 4242\n");
    // The machine's second core is idle, but the quota of one core holds this thread alone.
    expect(freeCoresNow({}, loadavg, usableCores(2, 1))).toBeUndefined();
    expect(freeCoresNow({}, loadavg, usableCores(2, 2))).toBe(1);
    const probe = measureFreeCores({}, usableCores(2, 1));
    // A stretch the kernel's counters tick in (their answer is not looked at: the quota caps it).
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 40);
    expect(probe.freeCores()).toBe(0);
  });
});
