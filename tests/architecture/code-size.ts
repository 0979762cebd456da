import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** A file or function over its limit: `key` is `path` for a file, `path:Name.inner` for a function. */
export interface Oversize {
  key: string;
  lines: number;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

function isFunctionLike(n: ts.Node): n is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(n) ||
    ts.isMethodDeclaration(n) ||
    ts.isFunctionExpression(n) ||
    ts.isArrowFunction(n) ||
    ts.isConstructorDeclaration(n) ||
    ts.isGetAccessorDeclaration(n) ||
    ts.isSetAccessorDeclaration(n)
  );
}

/** The name a function goes by: its own, the variable/property it is assigned to, else `<fn>`. */
function functionName(n: ts.FunctionLikeDeclaration): string {
  if (ts.isConstructorDeclaration(n)) return 'constructor';
  if (n.name && (ts.isIdentifier(n.name) || ts.isStringLiteral(n.name))) return n.name.text;
  const p = n.parent;
  if (
    (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) &&
    ts.isIdentifier(p.name)
  )
    return p.name.text;
  return '<fn>';
}

/**
 * Every file under `dir` (relative to `root`) over `maxFileLines` lines and every function over
 * `maxFunctionLines` (a function's lines include the functions nested in it; nested ones are
 * listed too, named after their enclosing classes and functions).
 */
export function oversized(
  root: string,
  dir: string,
  maxFileLines: number,
  maxFunctionLines: number,
): Oversize[] {
  const out: Oversize[] = [];
  for (const file of tsFiles(join(root, dir)).sort()) {
    const text = readFileSync(file, 'utf8');
    const rel = relative(root, file).split('\\').join('/');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
    const fileLines = lineOf(text.length) + (text.endsWith('\n') ? 0 : 1);
    if (fileLines > maxFileLines) out.push({ key: rel, lines: fileLines });
    const visit = (n: ts.Node, scope: string[]) => {
      let inner = scope;
      if (ts.isClassDeclaration(n) && n.name) inner = [...scope, n.name.text];
      if (isFunctionLike(n)) {
        inner = [...scope, functionName(n)];
        const lines = lineOf(n.end) - lineOf(n.getStart(sf)) + 1;
        if (lines > maxFunctionLines) out.push({ key: `${rel}:${inner.join('.')}`, lines });
      }
      ts.forEachChild(n, (c) => visit(c, inner));
    };
    visit(sf, []);
  }
  return out;
}
