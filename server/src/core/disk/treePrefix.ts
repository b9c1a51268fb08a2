/**
 * The tree drawing before each row of Pi's `/tree` (`│  ├⊟ `), made from the row's gutters, its
 * indent and its connector as Pi 1.6's tree selector makes it.
 */

/**
 * The vertical lines Pi draws at indent levels below branch points (`show`: not past the branch
 * point's last child), innermost first. Pi copies an array of them for every branch it enters; a list
 * that shares its outer part keeps a session nested thousands of branch points deep linear in memory.
 */
export type Gutters = { position: number; show: boolean; outer: Gutters } | undefined;

/**
 * The tree drawing of rows, as Pi's tree selector draws it: per indent level the outermost gutter at
 * that level (`│` when it shows), else the connector at the last level, else blanks. Every row of a chain
 * has the same gutters, so each drawing is made once and shared: a 50,000-entry session nested a
 * hundred branch points deep draws a few hundred prefixes, not 40,000 strings of 300 characters.
 */
export class PrefixCache {
  private readonly made = new Map<Gutters, Map<string, string>>();

  of(gutters: Gutters, indent: number, connector: string | undefined): string {
    if (indent === 0) return "";
    let byShape = this.made.get(gutters);
    if (!byShape) this.made.set(gutters, (byShape = new Map()));
    const key = `${indent}${connector ?? ""}`;
    let prefix = byShape.get(key);
    if (prefix === undefined) {
      const shown: (boolean | undefined)[] = new Array(indent);
      // Pi draws the outermost gutter of a level: walking outwards, the last one seen wins.
      for (let g = gutters; g !== undefined; g = g.outer) if (g.position >= 0 && g.position < indent) shown[g.position] = g.show;
      const parts: string[] = [];
      for (let level = 0; level < indent; level++) {
        const show = shown[level];
        if (show !== undefined) parts.push(show ? "│  " : "   ");
        else parts.push(connector !== undefined && level === indent - 1 ? connector : "   ");
      }
      prefix = parts.join("");
      byShape.set(key, prefix);
    }
    return prefix;
  }
}
