import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { mapTextBatch, TextFieldSchema } from './text-fields.ts';

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
/** Dotted quad, not glued to other digits or dots (so version strings like 1.2.3.4.5 stay). */
const IPV4 = `(?<![\\d.])${OCTET}(?:\\.${OCTET}){3}(?![\\d.]*\\d)`;
const H = '[0-9A-Fa-f]{1,4}';
/** Full and `::`-compressed IPv6 forms (at least two colons), not glued to hex digits. */
const IPV6 = `(?<![0-9A-Fa-f:])(?:(?:${H}:){7}${H}|(?:${H}:){1,7}:|(?:${H}:){1,6}:${H}|(?:${H}:){1,5}(?::${H}){1,2}|(?:${H}:){1,4}(?::${H}){1,3}|(?:${H}:){1,3}(?::${H}){1,4}|(?:${H}:){1,2}(?::${H}){1,5}|${H}:(?::${H}){1,6}|:(?::${H}){1,7}|::)(?![0-9A-Fa-f:])`;
const IP = new RegExp(`${IPV4}|${IPV6}`, 'g');

/** Replace every IPv4 and IPv6 address with `replacement`. */
export function removeIpAddresses(text: string, replacement: string): string {
  return text.includes('.') || text.includes(':') ? text.replace(IP, () => replacement) : text;
}

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  /** '' removes the address; e.g. '<ip>' marks where it was. */
  replacement: z.string().default(''),
});

export const removeIpAddressesOp = defineOperator<Task, typeof Params>({
  name: 'remove_ip_addresses',
  kind: 'map',
  rowWise: true,
  textOnly: true,
  description: 'Replace IPv4 and IPv6 addresses with a placeholder (default: remove them).',
  params: Params,
  create(p) {
    return {
      name: 'remove_ip_addresses',
      kind: 'map',
      process(batch) {
        return mapTextBatch(batch, p.field, (t) => removeIpAddresses(t, p.replacement));
      },
    };
  },
});
