/**
 * A JSON value as text where the API server prints one (label values, keys, names): a string as it
 * is, a number or boolean as `String` writes it, `null`/`undefined` as words, an object or array as
 * its JSON (never "[object Object]").
 */
export function plainText(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(v);
    case 'undefined':
      return 'undefined';
    case 'object':
      return v === null ? 'null' : JSON.stringify(v);
    case 'function':
    case 'symbol':
      return '';
  }
}
