// `winnow inspect`'s definition (options, help, docs/cli.md), apart from what runs it (inspect-command.ts),
// so that help and the command table load no more than this.
import { type CommandSpec, DB_OPTION, ROW_FILTER_OPTIONS } from '../command-spec.ts';

export const inspectSpec = {
  name: 'inspect',
  args: '[TABLE]',
  maxArgs: 1,
  summary:
    "Show the tables of a database, or one table: schema, versions and tags, column stats and sample rows; or a row's nearest neighbours by embedding (--similar). Reads only.",
  options: {
    db: DB_OPTION,
    table: {
      type: 'string',
      value: 'T',
      description: "table to show (default: all tables; with --run, the run's buffer or 'tasks')",
    },
    version: { type: 'string', value: 'N|TAG', description: 'read the table as of this version or tag' },
    ...ROW_FILTER_OPTIONS,
    limit: {
      type: 'int',
      min: 0,
      default: 5,
      description: 'sample rows to show (with --similar: neighbours)',
    },
    similar: {
      type: 'string',
      value: 'ID',
      description: 'show the rows nearest to row ID by embedding, with cosine distances (needs a table)',
    },
    embedding: {
      type: 'string',
      value: 'COL',
      description:
        'with --similar: the vector column, or meta.<key> of a task table (default: the first vector column, else meta.embedding)',
    },
    json: { type: 'boolean', description: 'print JSON instead of text' },
  },
  notes: [
    '--where takes a small filter language: columns, = != < <= > >=, AND OR NOT, ( ), IS [NOT] NULL,',
    "IN ('a', 'b'), LIKE 'pat%' and 'single-quoted' strings; it is checked against the table's columns first.",
    'Rows with malformed cells (written by other tools) are reported on stderr, one warning line per row.',
  ],
  examples: [
    'winnow inspect',
    'winnow inspect --table tasks --limit 3',
    'winnow inspect --run arithmetic-bots-1 --where "reward > 0 AND taskset IN (\'arithmetic\')"',
    'winnow inspect semantic_index --similar gsm8k-17 --limit 3',
  ],
} as const satisfies CommandSpec;
