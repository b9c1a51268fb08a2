import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export const REPO = join(__dirname, "..", "..");

/**
 * The repository's files, relative to its root, as a clone holds them: what git tracks plus what it
 * would add (untracked, not ignored), so that a test sees a new file before it is committed; without
 * git, every file outside node_modules/, out/ and .git/.
 */
export function repositoryFiles(): string[] {
  const git = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: REPO, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (git.status === 0) return git.stdout.split("\0").filter((f) => f !== "" && existsSync(join(REPO, f)));
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === "node_modules" || name === ".git" || (dir === REPO && name === "out")) continue;
      const path = join(dir, name);
      const stat = statSync(path, { throwIfNoEntry: false });
      if (stat?.isDirectory()) walk(path);
      else if (stat?.isFile()) files.push(relative(REPO, path));
    }
  };
  walk(REPO);
  return files;
}
