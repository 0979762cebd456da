"""Second opinion on tests/verify/fixtures/math-golden*.jsonl with sympy (an independent CAS).

Reads JSONL cases on stdin, prints one JSON line per case: {"id", "sympy": true|false|null}.
null means sympy abstains (its LaTeX parser could not read an answer). Written separately from
src/verify: its own extraction and clean-up, sympy's own parser (lark backend) and equality;
ratios compare by cross-multiplication, a +/- item is its two values, ;-separated x=.., y=..
groups are solutions compared by name (or in written order against a point).
"""
import json
import re
import sys

import sympy
from sympy.parsing.latex import parse_latex

STRIP = [
    (r'\\left|\\right|\\displaystyle', ''), (r'\\[dtc]frac', r'\\frac'), (r'\\[,;:!]|\\quad|~', ' '),
    (r'\^\s*\{?\\circ\}?|°', ''), (r'\\?%', ''), (r'\\?\$', ''), (r'\{,\}', ','),
    (r'\\(?:text|textnormal|mbox|mathrm|textbf)\{\s*([^{}]*?)\s*\}', r'\1'),
    (r'π', r'\\pi '), (r'√', r'\\sqrt'), (r'≤', r'\\le '), (r'≥', r'\\ge '), (r'≠', r'\\ne '), (r'∞', r'\\infty '),
    (r'∪', r'\\cup '), (r'−', '-'), (r'\\lt\b', '<'), (r'\\gt\b', '>'), (r'\\geq?\b', r'\\geq '), (r'\\leq?\b', r'\\leq '),
    (r'\\frac(\d)(\d)', r'\\frac{\1}{\2}'), (r'\\frac(\d)', r'\\frac{\1}'), (r'\\sqrt(\d)', r'\\sqrt{\1}'),
    (r'\\neq?\b', r'\\neq '), (r'\\varnothing|\\emptyset', 'EMPTY'),
]


def boxed(text):
    i = max(text.rfind('\\boxed'), text.rfind('\\fbox'))
    if i < 0:
        return None
    bare = re.match(r'\\(?:boxed|fbox)\s+([^\s{$]+)', text[i:])
    if bare:
        return bare.group(1)
    j = text.find('{', i)
    if j < 0:
        return 'UNCLOSED'
    depth = 0
    for k in range(j, len(text)):
        if text[k] == '{' and text[k - 1] != '\\':
            depth += 1
        elif text[k] == '}' and text[k - 1] != '\\':
            depth -= 1
            if depth == 0:
                return text[j + 1:k]
    return 'UNCLOSED'


def answer_of(text):
    b = boxed(text)
    if b is not None:
        return b
    if '####' in text:
        return text.rsplit('####', 1)[1].strip()
    m = list(re.finditer(r'answer\s*(?:is|:)\s*:?\**\s*', text, re.I))
    if m:
        rest = text[m[-1].end():].split('\n')[0]
        rest = re.sub(r'\.(\s|$).*', '', rest).strip()
        return rest
    blocks = re.findall(r'\$([^$]+)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]', text)
    prose = re.findall(r'(?<![\\a-zA-Z])[A-Za-z]{3,}', re.sub(r'\\(?:begin|end)\{\w+\}|\\text\w*\{[^{}]*\}', '', text))
    if not prose or (len(prose) <= 2 and re.fullmatch(r"[A-Za-z '\\{}()-]*", text)):
        return text
    if blocks:
        return next(x for x in blocks[-1] if x)
    nums = re.findall(r'-?\d[\d,]*\.?\d*', text)
    return nums[-1].rstrip(',.') if nums else None


def clean(s):
    for a, b in STRIP:
        s = re.sub(a, b, s)
    s = s.strip().rstrip('.')
    s = re.sub(r'^([A-Za-z])\s*\\in\s*', '', s)
    s = re.sub(r'(?<=\d)\s+(?=\d{3}\b)', '', s)
    s = re.sub(r'(?<=\d)\s*(?:[A-Za-z]{2,}\s*)+(?:\^\d)?$', '', s)
    return s.strip()


def split_top(s, sep=','):
    out, depth, cur, i = [], 0, '', 0
    while i < len(s):
        if s.startswith('\\{', i) or s.startswith('\\}', i):
            depth += 1 if s[i + 1] == '{' else -1
            cur += s[i:i + 2]
            i += 2
            continue
        c = s[i]
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        if depth == 0 and s.startswith(sep, i):
            out.append(cur.strip())
            cur = ''
            i += len(sep)
            continue
        cur += c
        i += 1
    out.append(cur.strip())
    return out


def num(s):
    s = s.strip()
    if re.fullmatch(r'-?\d{1,3}(,\d{3})+(\.\d+)?', s):
        s = s.replace(',', '')
    if re.fullmatch(r'-?\d+,\d{1,2}', s):
        s = s.replace(',', '.')
    if re.fullmatch(r'-?\d*\.?\d+(e-?\d+)?', s):
        return sympy.nsimplify(s, rational=True)
    return parse_latex(s, backend='lark')


def enclosed(s):
    """Whether the first bracket of s closes at its very end: (1,2) yes, (1,2),(3,4) no."""
    depth = 0
    for i, c in enumerate(s):
        depth += c in '([{'
        depth -= c in ')]}'
        if depth == 0:
            return i == len(s) - 1
    return False


def expand_pm(item):
    """One sign +/- in an item gives two items; two are ambiguous (ValueError: abstain)."""
    signs = re.findall(r'\\(?:pm|mp)(?![a-zA-Z])', item)
    if len(signs) > 1:
        raise ValueError('ambiguous')
    if not signs:
        return [item]
    a, b = ('+', '-') if signs[0] == '\\pm' else ('-', '+')
    return [re.sub(r'\\(?:pm|mp)(?![a-zA-Z])', a, item), re.sub(r'\\(?:pm|mp)(?![a-zA-Z])', b, item)]


def value_of(item):
    """x = v (a named value) is v."""
    return num(re.sub(r'^[A-Za-z]\s*=\s*', '', item))


def parse_extra(s):
    """Ratios, +/- answers and ;-separated labelled solutions, or None."""
    s = re.sub(r'^[A-Za-z]{1,3}(?:_\{?\w+\}?)?(?:\s*:\s*[A-Za-z]{1,3}(?:_\{?\w+\}?)?)+\s*=\s*', '', s)
    if ':' in s and '=' not in s and not re.search(r'[A-Za-z]', s):
        return ('ratio', tuple(num(p) for p in s.split(':')))
    if re.search(r'\\(?:pm|mp)(?![a-zA-Z])', s):
        return ('set', sympy.FiniteSet(*[value_of(x) for item in split_top(s) for x in expand_pm(item)]))
    if ';' in s and ',' in s:
        sols = []
        for group in s.replace('\\ ', ' ').split(';'):
            pairs = [re.fullmatch(r'\s*([A-Za-z])\s*=\s*(.+?)\s*', p) for p in group.split(',')]
            if not all(pairs):
                return None
            sols.append(('rec', tuple((m.group(1), num(m.group(2))) for m in pairs)))
        return ('sols', sols)
    parts = split_top(s)
    if len(parts) > 1 and all(p[:1] == '(' and enclosed(p) for p in parts):
        return ('sols', [('tup', tuple(num(x) for x in split_top(p[1:-1]))) for p in parts])
    return None


def same_solution(a, b):
    if a[0] == 'rec' and b[0] == 'rec':
        da, db = dict(a[1]), dict(b[1])
        return da.keys() == db.keys() and all(sympy.simplify(da[k] - db[k]) == 0 for k in da)
    va = [v for _, v in a[1]] if a[0] == 'rec' else list(a[1])
    vb = [v for _, v in b[1]] if b[0] == 'rec' else list(b[1])
    return len(va) == len(vb) and all(sympy.simplify(x - y) == 0 for x, y in zip(va, vb))


def parse(s):
    s = clean(s)
    extra = parse_extra(s)
    if extra is not None:
        return extra
    if re.fullmatch(r'\(?([A-E])\)?', s):
        return ('choice', s.strip('()'))
    if s == 'EMPTY':
        return ('set', sympy.FiniteSet())
    if re.fullmatch(r"[A-Za-z][A-Za-z '-]*", s) and re.search('[A-Za-z]{3}', s):
        return ('text', s.lower())
    if '\\cup' in s or re.fullmatch(r'[\[(].*,.*[\])]', s) and s[0] + s[-1] in ('[)', '(]'):
        parts = []
        for p in s.split('\\cup'):
            p = p.strip()
            lo, hi = split_top(p[1:-1])
            parts.append(sympy.Interval(num(lo), num(hi), p[0] == '(', p[-1] == ')'))
        return ('set', sympy.Union(*parts))
    if s.startswith('\\{') and s.endswith('\\}'):
        return ('set', sympy.FiniteSet(*[num(x) for x in split_top(s[2:-2])]))
    if s[:1] in '([' and s[-1:] in ')]' and len(split_top(s[1:-1])) > 1:
        items = [num(x) for x in split_top(s[1:-1])]
        if len(items) == 2:
            return ('set', sympy.Interval(items[0], items[1], s[0] == '(', s[-1] == ')'))
        return ('tuple', (s[0], s[-1]) + tuple(items))
    if len(split_top(s)) > 1 and not re.fullmatch(r'-?\d{1,3}(,\d{3})+', s) and not re.fullmatch(r'-?\d+,\d{1,2}', s):
        items = split_top(s)
        # x = 1, x = 2 (one variable's solutions) are values; a = 2, b = 3 keep their names.
        names = {m.group(1) for m in (re.match(r'^([A-Za-z])\s*=', x) for x in items) if m}
        read = value_of if len(names) == 1 else num
        return ('set', sympy.FiniteSet(*[read(x) for x in items]))
    e = num(s)
    if isinstance(e, sympy.MatrixBase):
        return ('matrix', e)
    if isinstance(e, sympy.Equality):
        return ('eq', e)
    if isinstance(e, (sympy.Rel, sympy.And)):
        x = e.free_symbols
        if len(x) == 1:
            return ('set', sympy.solveset(e, x.pop(), sympy.S.Reals))
        return ('rel', e)
    return ('expr', e)


def equal(g, r):
    (gk, gv), (rk, rv) = g, r
    if gk == 'eq' and rk != 'eq' and isinstance(gv.lhs, sympy.Symbol):
        gk, gv = 'expr', gv.rhs
    if rk == 'eq' and gk != 'eq' and isinstance(rv.lhs, sympy.Symbol):
        rk, rv = 'expr', rv.rhs
    if gk == 'set' and rk == 'expr':
        rk, rv = 'set', sympy.FiniteSet(rv)
    if gk == 'ratio' and rk == 'expr' and len(gv) == 2:
        gk, gv = 'expr', gv[0] / gv[1]
    if rk == 'ratio' and gk == 'expr' and len(rv) == 2:
        rk, rv = 'expr', rv[0] / rv[1]
    if gk == 'sols' and rk == 'tuple':
        rk, rv = 'sols', [('tup', rv[2:])]
    if gk != rk:
        return False
    if gk == 'ratio':
        return len(gv) == len(rv) and gv[0] != 0 and rv[0] != 0 and all(
            sympy.simplify(a * rv[0] - b * gv[0]) == 0 for a, b in zip(gv, rv))
    if gk == 'sols':
        return all(any(same_solution(a, b) for b in rv) for a in gv) and all(
            any(same_solution(a, b) for a in gv) for b in rv)
    if gk in ('choice', 'text'):
        return gv == rv
    if gk == 'expr':
        d = sympy.simplify(gv - rv)
        if d == 0:
            return True
        if not d.free_symbols:
            if gv.is_Integer and rv.is_Integer:
                return False
            gn, rn = sympy.N(gv), sympy.N(rv)
            return bool(abs(gn - rn) <= 1e-6 * max(abs(gn), abs(rn)))
        return False
    if gk == 'set':
        return bool(sympy.simplify(sympy.Complement(gv, rv)) == sympy.S.EmptySet
                    and sympy.simplify(sympy.Complement(rv, gv)) == sympy.S.EmptySet)
    if gk == 'tuple':
        return gv[:2] == rv[:2] and len(gv) == len(rv) and all(sympy.simplify(a - b) == 0 for a, b in zip(gv[2:], rv[2:]))
    if gk == 'matrix':
        return gv.shape == rv.shape and sympy.simplify(gv - rv) == sympy.zeros(*gv.shape)
    if gk == 'eq':
        a, b = gv.lhs - gv.rhs, rv.lhs - rv.rhs
        q = sympy.simplify(a / b)
        return bool(q.is_number and q != 0)
    return None


def verdict(case):
    if re.search(r'\\(def|input|newcommand)\b', case['response']):
        return False
    g, r = answer_of(case['gold']), answer_of(case['response'])
    if r is None or r == 'UNCLOSED':
        return False
    try:
        return equal(parse(g), parse(r))
    except Exception:
        return None


for line in sys.stdin:
    if line.strip():
        c = json.loads(line)
        print(json.dumps({'id': c['id'], 'sympy': verdict(c)}))
