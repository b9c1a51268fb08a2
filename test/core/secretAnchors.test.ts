/**
 * The fast scan for the places a credential may start (`nextAnchor`) finds exactly what the one
 * case-insensitive expression it stands for finds: the same places, in the same order, with the
 * same alternative at each, on generated lines mixing every anchor in every case with characters
 * beyond ASCII that fold onto ASCII letters elsewhere (the Kelvin sign, dotted I, long s).
 */

import { describe, expect, it } from "vitest";
import { nextAnchor } from "../../server/src/core/line/secretAnchors";

/** The expression `findSecrets` ran before the scan replaced it, kept here as the reference. */
const REFERENCE =
  /"data":"|-----BEGIN |:\/\/|sk-|gh[pousr]_|github_pat_|A(?:KIA|SIA|BIA|CCA|3T|Iza)|xox[abposre]-|[sr]k_(?:live|test|prod)_|npm_|eyJ|api_?key|apikey|access_?key|secret|token|passw(?:or)?d|pwd|bearer|credential|creds|auth/gi;

function byReference(text: string): [number, string][] {
  const out: [number, string][] = [];
  REFERENCE.lastIndex = 0;
  for (let m = REFERENCE.exec(text); m; m = REFERENCE.exec(text)) out.push([m.index, m[0]]);
  return out;
}

function byScan(text: string): [number, string][] {
  const out: [number, string][] = [];
  for (let m = nextAnchor(text, 0); m; m = nextAnchor(text, m.index + m.hit.length)) out.push([m.index, m.hit]);
  return out;
}

const FRAGMENTS = [
  '"data":"',
  "-----BEGIN ",
  "----",
  "://",
  "sk-",
  "ghp_",
  "ghr_",
  "gh_",
  "github_pat_",
  "AKIA",
  "ASIA",
  "ABIA",
  "ACCA",
  "A3T",
  "AIza",
  "xoxb-",
  "xox-",
  "sk_live_",
  "rk_prod_",
  "npm_",
  "eyJ",
  "api_key",
  "apikey",
  "api_",
  "access_key",
  "accesskey",
  "secret",
  "secre",
  "token",
  "toke",
  "password",
  "passwd",
  "passw",
  "pwd",
  "bearer",
  "credential",
  "creds",
  "cred",
  "auth",
  "\u212a",
  "\u0130",
  "\u017f",
  "é",
  "\\n",
  '"',
  ":",
  "=",
  " ",
  "x",
  "0",
];

/** A small deterministic generator, so that a failure can be replayed. */
function generator(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

describe("nextAnchor", () => {
  it("finds what the expression finds on generated lines, in any case", () => {
    const random = generator(42);
    let anchors = 0;
    for (let n = 0; n < 5000; n++) {
      let text = "";
      const parts = 1 + Math.floor(random() * 20);
      for (let i = 0; i < parts; i++) {
        const f = FRAGMENTS[Math.floor(random() * FRAGMENTS.length)]!;
        text += random() < 0.3 ? [...f].map((c) => (random() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join("") : f;
      }
      const expected = byReference(text);
      anchors += expected.length;
      expect(byScan(text), JSON.stringify(text)).toEqual(expected);
    }
    // The generated lines are full of anchors, so the comparison is not an empty one.
    expect(anchors).toBeGreaterThan(10_000);
  });

  it("takes the first alternative where two start at one place, and skips overlaps as the expression does", () => {
    for (const text of ["github_pat_x", "sk_live_x", "SECRETOKEN", "passwordpwd", "apikey api_key", "eyJhbGciOi.eyJ", "ToKeN=1"]) {
      expect(byScan(text), text).toEqual(byReference(text));
    }
  });

  it("finds nothing where a character beyond ASCII stands for a letter of an anchor", () => {
    // Without the `u` flag, JavaScript's case-insensitive matching never folds these onto ASCII.
    const text = "\u017fk-x a\u212aia \u017fecret \u0130za plain words";
    expect(byReference(text)).toEqual([]);
    expect(nextAnchor(text, 0)).toBeUndefined();
  });

  it("finds anchors that straddle the 64 KiB windows the scan reads a long line in", () => {
    for (const shift of [0, 1, 2, 3]) {
      const text = `${"x ".repeat(32_767)}${"y".repeat(shift)}Token=1 ${"é ".repeat(40_000)}github_pat_ sk-`;
      expect(byScan(text), String(shift)).toEqual(byReference(text));
      expect(byScan(text).length).toBe(3);
    }
  });

  it("gives the same answer on hostile runs of near-misses, before and after it hands them to the engine's search", () => {
    for (const unit of ["---", "sec", "tok", "aut", "ghp", "\u212a"]) {
      const text = `${unit.repeat(100_000)} Token`;
      expect(byScan(text)).toEqual(byReference(text));
    }
    // Runs shorter and longer than the misses allowed in one search, between anchors.
    for (const misses of [5, 31, 32, 33, 80]) {
      const text = `${"sec-".repeat(misses)}Token=1 ://x `.repeat(20);
      expect(byScan(text), String(misses)).toEqual(byReference(text));
    }
  });
});
