import { basename } from 'node:path';
import type { Task } from '../core/task.ts';

/**
 * Data-Juicer keeps every row unless an operator drops it: two rows with the same text are two
 * rows. A Winnow task's id is a hash of its text (io/mapping.ts), so identical rows would be one
 * task and the later one dropped at the write step. A recipe run therefore gives each kept task an
 * id of its source row, `FILE:ROW` (the file's name and its row as the reader numbers it: the line
 * for JSON Lines and CSV, the 0-based index for Parquet and JSON arrays), just before the write.
 * The ids are given after the operators (on the main thread, where every row's source is already
 * numbered in its file), so they hold with `np` workers too. A row an operator splits into several
 * (text_chunk_mapper, sentence_split_mapper) gives `FILE:ROW`, `FILE:ROW.2`, `FILE:ROW.3`… in order.
 * A task without a source (none of Data-Juicer's ops makes one) keeps its id.
 */
export function recipeRowIds(): (rows: readonly Task[]) => Task[] {
  let last = '';
  let repeat = 1;
  return (rows) =>
    rows.map((task) => {
      if (task.source === undefined) return task;
      const id = `${basename(task.source.file)}:${task.source.row}`;
      repeat = id === last ? repeat + 1 : 1;
      last = id;
      return { ...task, id: repeat === 1 ? id : `${id}.${repeat}` };
    });
}
