/**
 * Text from another machine made safe to show (issue #37, invariant 13): an agent's message, a name
 * from a hostile API server. C0 controls (ESC starts a terminal escape: a screen clear, a cursor
 * move), DEL, C1 controls (CSI 0x9b alone is one) and the Unicode bidi and invisible format
 * controls (which reorder what a person reads) are written as `\xHH` / `\u{HHHH}`, visible and
 * inert. A newline is kept only where a text may span lines (`keepNewlines`); in a table cell or a
 * one-line field it too is escaped, so a value can not forge a line of its own.
 */

// C0 but \n (and \t, kept readable), DEL, C1; bidi embeddings/overrides/isolates, marks, ALM,
// zero-width and BOM format characters.
// eslint-disable-next-line no-control-regex -- finding control characters is what this module is for
const UNSAFE_MULTILINE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;
// eslint-disable-next-line no-control-regex -- as above
const UNSAFE_ONE_LINE = /[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

const escapeChar = (c: string): string => {
  const code = c.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
};

/** `text` with every control escaped; newlines kept when `keepNewlines` (multi-line text). */
export function escapeControls(text: string, keepNewlines = false): string {
  return text.replace(keepNewlines ? UNSAFE_MULTILINE : UNSAFE_ONE_LINE, escapeChar);
}
