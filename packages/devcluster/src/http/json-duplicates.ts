/**
 * Duplicate keys in a JSON document, named by path as kube-apiserver's strict decoding names them
 * (`duplicate field "metadata.name"`, `duplicate field "spec.ports[0].hostPort"`). `JSON.parse`
 * keeps the last of two equal keys silently; kube-apiserver refuses the body under
 * `fieldValidation=Strict` and warns under `Warn` (the default). Iterative, so no nesting depth
 * the parser accepted can overflow the stack.
 */

type Frame =
  { kind: 'object'; path: string; seen: Set<string> } | { kind: 'array'; path: string; index: number };

const WS = new Set([' ', '\t', '\n', '\r']);

/** The paths of duplicate keys in `text`, in document order; `text` must be valid JSON. */
export function duplicateFields(text: string): string[] {
  const found: string[] = [];
  const stack: Frame[] = [];
  let i = 0;
  const skipWs = (): void => {
    while (i < text.length && WS.has(text[i]!)) i++;
  };
  const readString = (): string => {
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  // The path of the value about to be read: a key's, an item's, or the root's.
  let path = '';
  let justOpened = false;
  for (;;) {
    skipWs();
    const c = text[i];
    justOpened = c === '{' || c === '[';
    if (justOpened) {
      i++;
      stack.push(c === '{' ? { kind: 'object', path, seen: new Set() } : { kind: 'array', path, index: 0 });
    } else {
      if (c === '"') readString();
      else
        while (i < text.length && !WS.has(text[i]!) && text[i] !== ',' && text[i] !== '}' && text[i] !== ']')
          i++;
    }
    // After a value (or an opening bracket): the next key or item, or close containers.
    for (;;) {
      skipWs();
      const top = stack.at(-1);
      if (!top) return found;
      const d = text[i];
      if (d === '}' || d === ']') {
        i++;
        stack.pop();
        justOpened = false;
        continue;
      }
      if (!justOpened) {
        if (d !== ',') return found; // not valid JSON: nothing more to say
        i++;
        skipWs();
      }
      justOpened = false;
      if (top.kind === 'object') {
        const key = readString();
        skipWs();
        i++; // ':'
        path = top.path ? `${top.path}.${key}` : key;
        if (top.seen.has(key)) found.push(path);
        else top.seen.add(key);
      } else path = `${top.path}[${top.index++}]`;
      break;
    }
  }
}
