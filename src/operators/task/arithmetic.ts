import type { Rational } from './rational.ts';
import { add, div, mul, neg, parseDecimal, sub } from './rational.ts';

/**
 * A small, safe arithmetic language for calculator annotations: decimal numbers, + − * /,
 * unary minus/plus and parentheses. Parsed by recursive descent into a tree (no eval, no
 * Function) and evaluated exactly with rationals. Number literals remember where they are in
 * the source, so an expression can be rewritten with new values.
 */
export type ArithNode =
  | { type: 'num'; value: Rational; text: string; start: number; end: number }
  | { type: 'neg'; arg: ArithNode }
  | { type: 'bin'; op: '+' | '-' | '*' | '/'; left: ArithNode; right: ArithNode };

export class ArithmeticError extends Error {
  override name = 'ArithmeticError';
}

/** Parse `expr`; throws ArithmeticError saying what is wrong and where. */
export function parseArithmetic(expr: string): ArithNode {
  let pos = 0;
  const skip = () => {
    while (pos < expr.length && (expr[pos] === ' ' || expr[pos] === '\t')) pos++;
  };
  const fail = (what: string): never => {
    throw new ArithmeticError(`${what} at offset ${pos} in "${expr}"`);
  };

  function primary(): ArithNode {
    skip();
    const c = expr[pos];
    if (c === '(') {
      pos++;
      const inner = sum();
      skip();
      if (expr[pos] !== ')') fail("expected ')'");
      pos++;
      return inner;
    }
    const m = /^(?:\d+(?:\.\d+)?|\.\d+)/.exec(expr.slice(pos));
    if (!m) return fail(c === undefined ? 'unexpected end' : `unexpected '${c}'`);
    const start = pos;
    pos += m[0].length;
    return { type: 'num', value: parseDecimal(m[0])!, text: m[0], start, end: pos };
  }

  function unary(): ArithNode {
    skip();
    if (expr[pos] === '-') {
      pos++;
      return { type: 'neg', arg: unary() };
    }
    if (expr[pos] === '+') {
      pos++;
      return unary();
    }
    return primary();
  }

  function product(): ArithNode {
    let left = unary();
    for (;;) {
      skip();
      const c = expr[pos];
      if (c !== '*' && c !== '/') return left;
      pos++;
      left = { type: 'bin', op: c, left, right: unary() };
    }
  }

  function sum(): ArithNode {
    let left = product();
    for (;;) {
      skip();
      const c = expr[pos];
      if (c !== '+' && c !== '-') return left;
      pos++;
      left = { type: 'bin', op: c, left, right: product() };
    }
  }

  const tree = sum();
  skip();
  if (pos < expr.length) fail(`unexpected '${expr[pos]}'`);
  return tree;
}

/**
 * Evaluate a tree exactly. `literalValue` may substitute a literal's value (used to re-run an
 * annotation with perturbed inputs). Division by zero throws a RangeError.
 */
export function evaluateNode(
  node: ArithNode,
  literalValue: (lit: Extract<ArithNode, { type: 'num' }>) => Rational = (lit) => lit.value,
): Rational {
  switch (node.type) {
    case 'num':
      return literalValue(node);
    case 'neg':
      return neg(evaluateNode(node.arg, literalValue));
    case 'bin': {
      const l = evaluateNode(node.left, literalValue);
      const r = evaluateNode(node.right, literalValue);
      if (node.op === '+') return add(l, r);
      if (node.op === '-') return sub(l, r);
      if (node.op === '*') return mul(l, r);
      return div(l, r);
    }
  }
}

/** Number literals in source order. */
export function literals(node: ArithNode): Array<Extract<ArithNode, { type: 'num' }>> {
  const out: Array<Extract<ArithNode, { type: 'num' }>> = [];
  const walk = (n: ArithNode) => {
    if (n.type === 'num') out.push(n);
    else if (n.type === 'neg') walk(n.arg);
    else {
      walk(n.left);
      walk(n.right);
    }
  };
  walk(node);
  return out;
}

/** Parse and evaluate in one step. */
export function evaluateArithmetic(expr: string): Rational {
  return evaluateNode(parseArithmetic(expr));
}
