// The order every store keeps its keys in: code points (UTF-8 bytes), as LevelDB and bytea do.

/** Compares two keys in code point order (UTF-8 byte order). JavaScript's `<` orders
 *  UTF-16 code units, which differs once a surrogate pair meets a character in U+E000–U+FFFF. */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Surrogates (astral code points) sort after U+E000–U+FFFF in code point order.
      x = x < 0xe000 ? x + 0x2000 : x - 0x800;
      y = y < 0xe000 ? y + 0x2000 : y - 0x800;
    }
    return x - y;
  }
  return a.length - b.length;
}
