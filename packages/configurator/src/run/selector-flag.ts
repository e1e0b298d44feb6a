/**
 * The `--node-selector` flag in kubectl's label-selector syntax: `k=v`, `k==v`, `k!=v`, `k`, `!k`,
 * `k in (a,b)`, `k notin (a,b)`, joined by commas.
 */
import { OptionError, selectorTerms, type LabelSelector, type LabelSelectorRequirement } from '@nodenet/api';

const KEY = '[A-Za-z0-9]([A-Za-z0-9._/-]*[A-Za-z0-9])?';
const VALUE = '[A-Za-z0-9._-]*';

export function parseSelectorFlag(text: string, flag = '--node-selector'): LabelSelector | undefined {
  const src = text.trim();
  if (src === '') return undefined;
  const parts = selectorTerms(src);
  const matchLabels: Record<string, string> = {};
  const matchExpressions: LabelSelectorRequirement[] = [];
  for (const raw of parts) {
    const p = raw.trim();
    let m: RegExpExecArray | null;
    if ((m = new RegExp(`^(${KEY})\\s*(==|=)\\s*(${VALUE})$`).exec(p))) {
      matchLabels[m[1] as string] = m[4] as string;
    } else if ((m = new RegExp(`^(${KEY})\\s*!=\\s*(${VALUE})$`).exec(p))) {
      matchExpressions.push({ key: m[1] as string, operator: 'NotIn', values: [m[3] as string] });
    } else if ((m = new RegExp(`^(${KEY})\\s+(in|notin)\\s*\\(([^)]*)\\)$`).exec(p))) {
      const values = (m[4] as string).split(',').map((v) => v.trim());
      if (values.some((v) => !new RegExp(`^${VALUE}$`).test(v)))
        throw new OptionError(flag, text, `bad value list in ${JSON.stringify(p)}`);
      matchExpressions.push({ key: m[1] as string, operator: m[3] === 'in' ? 'In' : 'NotIn', values });
    } else if ((m = new RegExp(`^!\\s*(${KEY})$`).exec(p))) {
      matchExpressions.push({ key: m[1] as string, operator: 'DoesNotExist' });
    } else if ((m = new RegExp(`^(${KEY})$`).exec(p))) {
      matchExpressions.push({ key: m[1] as string, operator: 'Exists' });
    } else {
      throw new OptionError(
        flag,
        text,
        `cannot parse requirement ${JSON.stringify(p)}; use k=v, k!=v, k in (a,b), k notin (a,b), k or !k`,
      );
    }
  }
  return {
    ...(Object.keys(matchLabels).length ? { matchLabels } : {}),
    ...(matchExpressions.length ? { matchExpressions } : {}),
  };
}
