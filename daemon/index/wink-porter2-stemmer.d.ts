// The package ships no types. It is CommonJS with `module.exports = stem`,
// which Node's ESM loader exposes as the default export.
declare module 'wink-porter2-stemmer' {
  function stem(word: string): string;
  export = stem;
}
