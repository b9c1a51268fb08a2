/**
 * Where Pi keeps its sessions: `core/disk/location.ts` against what the real Pi's own functions
 * decided on the same cases (test/sessions/whereCases.json, recorded by test/sessions/oracle.mjs in
 * expected/where.*.json), for Pi 1.6.0 and 0.74.2; and against the real `pi` command's choice of
 * folder for a new session (expected/cli.*.json).
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultSessionDir, encodeCwd, locateSessions, type PiVersion, settingsPaths } from "../../server/src/core/disk/location";

interface WhereCase {
  name: string;
  cwd: string;
  env?: { PI_CODING_AGENT_DIR?: string; PI_CODING_AGENT_SESSION_DIR?: string };
  flag?: string;
  settings?: { global?: string; project?: string };
}

/** The cases, with "<R>" for a temporary folder and "<RENC>" for it as Pi encodes it in a folder name. */
const WHERE_CASES: WhereCase[] = JSON.parse(readFileSync(join(__dirname, "whereCases.json"), "utf8"));

function instantiate(c: WhereCase, root: string): WhereCase {
  const enc = root.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-");
  return JSON.parse(JSON.stringify(c).replaceAll("<RENC>", enc).replaceAll("<R>", root));
}

const ROOT = "/tmp/oracle-root";
const ENC = "tmp-oracle-root";

interface Recorded {
  name: string;
  threw?: string;
  settingsPaths?: { global: string; project: string };
  agentDir?: string;
  sessionsRoot?: string;
  projectDir?: string;
  currentDir?: string;
  filterByCwd?: boolean;
  all?: unknown;
}

const expected = (file: string) => JSON.parse(readFileSync(join(__dirname, "expected", file), "utf8"));
const placeholders = <T>(value: T): T => JSON.parse(JSON.stringify(value).split(ROOT).join("<ROOT>").split(ENC).join("<ENC>"));

function ours(version: PiVersion, raw: WhereCase) {
  const c = instantiate(raw, ROOT);
  const p = {
    home: `${ROOT}/h`,
    cwd: c.cwd,
    agentDirEnv: c.env?.PI_CODING_AGENT_DIR,
    sessionDirEnv: c.env?.PI_CODING_AGENT_SESSION_DIR,
    sessionDirFlag: c.flag,
  };
  const paths = settingsPaths(version, p);
  const location = locateSessions(version, p, {
    global: { path: paths.global, text: c.settings?.global },
    project: { path: paths.project, text: c.settings?.project },
  });
  return { paths, location };
}

for (const [version, short] of [
  ["1.x", "16"],
  ["0.74", "074"],
] as const) {
  describe(`where Pi ${version} keeps sessions, case by case against the real Pi's functions`, () => {
    const recorded: Recorded[] = expected(`where.${short}.json`);
    it("has a recorded answer for every case", () => {
      expect(recorded.map((r) => r.name)).toEqual(WHERE_CASES.map((c) => c.name));
    });
    for (const [i, raw] of WHERE_CASES.entries()) {
      it(raw.name, () => {
        const want = recorded[i]!;
        const { paths, location } = ours(version, raw);
        if (want.threw) {
          expect(location.problem, `Pi threw ${want.threw}`).toBeDefined();
          return;
        }
        expect(location.problem).toBeUndefined();
        const got: Record<string, unknown> = {
          name: raw.name,
          settingsPaths: paths,
          agentDir: location.agentDir,
          sessionsRoot: location.sessionsRoot,
          projectDir: location.projectDir,
          currentDir: location.currentDir,
          all: location.all,
        };
        if (version === "1.x") got.filterByCwd = location.filterByCwd;
        expect(placeholders(got)).toEqual(want);
      });
    }
  });

  describe(`the folder the real pi ${version} command uses for a new session`, () => {
    for (const want of expected(`cli.${short}.json`) as { name: string; dir?: string; exit?: number; stderr?: string }[]) {
      it(want.name, () => {
        const { location } = ours(version, WHERE_CASES.find((c) => c.name === want.name)!);
        if (want.dir === undefined) {
          expect(want.exit, want.stderr).not.toBe(0);
          expect(location.problem).toBeDefined();
        } else {
          expect(placeholders(location.newSessionDir)).toBe(want.dir);
        }
      });
    }
  });
}

describe("the folder name of a cwd", () => {
  it("drops one leading slash and turns /, \\ and : into dashes, nothing else", () => {
    const p = { home: "/home/dev", cwd: "/home/dev" };
    expect(encodeCwd("1.x", "/home/dev/my proj:v2", p)).toBe("--home-dev-my proj-v2--");
    expect(encodeCwd("0.74", "C:\\Users\\dev", p)).toBe("--C--Users-dev--");
    expect(encodeCwd("0.74", "/", p)).toBe("----");
  });

  it("is taken of the resolved cwd by Pi 1.x and of the raw one by Pi 0.74", () => {
    const p = { home: "/home/dev", cwd: "/work" };
    expect(encodeCwd("1.x", "~/p/../q/", p)).toBe("--home-dev-q--");
    expect(encodeCwd("0.74", "~/p/../q/", p)).toBe("--~-p-..-q---");
    expect(defaultSessionDir("1.x", "rel", "~/agent", p)).toBe("/home/dev/agent/sessions/--work-rel--");
    expect(defaultSessionDir("0.74", "rel", "~/agent", p)).toBe("~/agent/sessions/--rel--");
  });
});
