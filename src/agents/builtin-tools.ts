import { z } from 'zod';
import type { JsonValue } from '../core/task.ts';
import { evaluateExpression, show } from '../verify/countdown-expression.ts';
import { defineTool, type Tool } from './tool.ts';

/** `a op b` on two numbers; division by zero is a tool error. */
export const calculatorTool = defineTool({
  name: 'calculator',
  description: 'Compute a op b for two numbers (op is one of + - * /).',
  args: z.strictObject({
    a: z.number().describe('left operand'),
    op: z.enum(['+', '-', '*', '/']).describe('operation'),
    b: z.number().describe('right operand'),
  }),
  run: ({ a, op, b }) => {
    if (op === '/' && b === 0) throw new Error('division by zero');
    const value = op === '+' ? a + b : op === '-' ? a - b : op === '*' ? a * b : a / b;
    return value;
  },
});

/**
 * An arithmetic expression (numbers, + − × ÷, parentheses), computed exactly by the same
 * recursive-descent evaluator the countdown reward uses — nothing is handed to `eval`.
 */
export const evaluateTool = defineTool({
  name: 'evaluate',
  description: 'Evaluate an arithmetic expression with + - * / and parentheses, exactly (fractions as n/d).',
  args: z.strictObject({ expression: z.string().min(1).max(512).describe('e.g. (25 + 3) * 4') }),
  run: ({ expression }) => {
    const parsed = evaluateExpression(expression);
    if (!parsed.ok) throw new Error(parsed.error);
    return show(parsed.value);
  },
});

/**
 * A key-value "database": the entries come from the environment's params (`table`) and, per task,
 * from `task.meta.kv` (an object), which wins on a clash. A missing key is a tool error.
 */
export function lookupTool(table: Readonly<Record<string, JsonValue>>): Tool<{ key: string }> {
  return defineTool({
    name: 'lookup',
    description: 'Look a key up in the key-value store and return its value.',
    args: z.strictObject({ key: z.string().min(1).describe('the key to look up') }),
    run: ({ key }, { task }) => {
      const kv = task.meta.kv;
      const own = kv !== null && typeof kv === 'object' && !Array.isArray(kv) ? kv : {};
      const value = Object.hasOwn(own, key) ? own[key] : Object.hasOwn(table, key) ? table[key] : undefined;
      if (value === undefined) throw new Error(`no entry for key '${key}'`);
      return value;
    },
  });
}

/** The built-in tools by name, for `tools: [calculator, evaluate, lookup]` in a tool environment's params. */
export const BUILTIN_TOOL_NAMES = ['calculator', 'evaluate', 'lookup'] as const;
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

export function builtinTool(name: BuiltinToolName, table: Readonly<Record<string, JsonValue>>): Tool {
  if (name === 'calculator') return calculatorTool as Tool;
  if (name === 'evaluate') return evaluateTool as Tool;
  return lookupTool(table) as Tool;
}
