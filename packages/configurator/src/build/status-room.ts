/**
 * Room for a NodeConfig's status in the size budget (issue #37), pure: the largest JSON the CRD
 * admits for `status`, from its schema. A NodeConfig's spec is a subset of a revision's config, so
 * the config's budget is the object limit less this figure (and the metadata headroom): whatever
 * its agent reports, the configurator's write of the spec still fits, and one agent's status can not
 * make its NodeConfig unwritable. Every list and string of the schema must be bounded; an unbounded
 * one is an error here, not a silent guess.
 */
import type { TSchema } from '@sinclair/typebox';
import { NodeConfigStatus, ONE_BYTE_PATTERNS } from '@nodenet/api';

/** Bytes one character of a string may take as JSON: `\u0000`, unless its pattern rules that out. */
const worstCharBytes = (s: TSchema): number =>
  (typeof s.pattern === 'string' && ONE_BYTE_PATTERNS.has(s.pattern)) || s.format === 'date-time' ? 1 : 6;

/** The largest JSON text (UTF-8 bytes) a value of the schema can be. */
export function maxJsonBytes(schema: TSchema, at = '$'): number {
  const s = schema as TSchema & Record<string, unknown>;
  if (Array.isArray(s.enum))
    return 2 + Math.max(...(s.enum as string[]).map((v) => JSON.stringify(v).length));
  switch (s.type) {
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, TSchema>;
      return Object.entries(props).reduce((n, [k, v]) => n + k.length + 4 + maxJsonBytes(v, `${at}.${k}`), 2);
    }
    case 'array':
      if (typeof s.maxItems !== 'number')
        throw new Error(`${at}: a list without maxItems has no largest size`);
      return 2 + s.maxItems * (1 + maxJsonBytes(s.items as TSchema, `${at}[]`));
    case 'string':
      if (typeof s.maxLength !== 'number')
        throw new Error(`${at}: a string without maxLength has no largest size`);
      return 2 + s.maxLength * worstCharBytes(s);
    case 'integer':
    case 'number':
      return 24;
    case 'boolean':
      return 5;
    default:
      throw new Error(`${at}: no largest size for schema type ${String(s.type)}`);
  }
}

/** The largest `status` of a NodeConfig the CRD admits, in JSON bytes. */
export const NODE_CONFIG_STATUS_MAX_BYTES = maxJsonBytes(NodeConfigStatus, 'status');
