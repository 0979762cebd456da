import { describe, expect, it } from 'vitest';
import { type ColumnKind, whereToSql } from '../../src/inspect/where-filter.ts';

const cols = new Map<string, ColumnKind>([
  ['reward', 'number'],
  ['taskset', 'string'],
  ['truncated', 'boolean'],
  ['tokens', 'other'],
  ['Mixed', 'string'],
]);
const sql = (text: string) => whereToSql(text, cols);
const error = (text: string) => {
  try {
    sql(text);
  } catch (e) {
    return (e as Error).message;
  }
  return null;
};

describe('--where grammar', () => {
  it('prints fully parenthesised SQL from the tree, with AND binding tighter than OR', () => {
    expect(sql("reward > 0.5 OR taskset = 'a' AND NOT truncated = TRUE")).toBe(
      "((reward > 0.5) OR ((taskset = 'a') AND (NOT (truncated = TRUE))))",
    );
    expect(sql("(reward >= -1 or reward <> 2) and taskset in ('a', 'b''c')")).toBe(
      "(((reward >= -1) OR (reward != 2)) AND (taskset IN ('a', 'b''c')))",
    );
    expect(sql("taskset NOT LIKE 'gsm%' AND tokens IS NOT NULL AND Mixed IS NULL")).toBe(
      "(((taskset NOT LIKE 'gsm%') AND (tokens IS NOT NULL)) AND (`Mixed` IS NULL))",
    );
    expect(sql('reward NOT IN (1, 2e3)')).toBe('(reward NOT IN (1, 2000))');
  });

  it('names the position and the nearest column in one line', () => {
    expect(error('rewad > 1')).toBe("--where: unknown column 'rewad' at 1 (did you mean 'reward'?)");
    expect(error('taskset LIKE 3')).toBe("--where: LIKE takes a 'pattern' in single quotes, got '3' at 14");
    expect(error("reward LIKE 'a'")).toBe("--where: LIKE needs a text column, 'reward' holds numbers at 8");
    expect(error('tokens = 1')).toBe("--where: column 'tokens' can only be tested with IS [NOT] NULL at 10");
    expect(error("taskset = 'open")).toBe("--where: unterminated string at 11 (close it with ')");
    expect(error('reward == 1')).toBe(
      "--where: expected a value ('text', a number, TRUE or FALSE), got '=' at 9",
    );
    expect(error('')).toMatch(/^--where: empty expression at 1/);
    expect(error('reward = taskset')).toBe(
      "--where: cannot compare 'reward' (number) with 'taskset' (string) at 10",
    );
  });
});
