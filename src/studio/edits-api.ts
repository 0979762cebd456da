import { HttpError } from '../serve/http-error.ts';
import { EditLog, type EditRecord } from './edit-log.ts';
import { undoExperienceEdit } from './experience-edits.ts';
import { checkWritable, type StudioContext, studioConnection } from './studio-context.ts';
import { undoTaskEdit } from './task-edits.ts';
import { serialized } from './write-queue.ts';

/** An edit as the client sees it: the record plus whether (and by which edit) it was undone. */
export interface EditView extends EditRecord {
  undoneBy: string | null;
}

export async function listEdits(
  ctx: StudioContext,
  filter: { table?: string; rowId?: string },
): Promise<EditView[]> {
  const log = EditLog.of(await studioConnection(ctx));
  const all = await log.list();
  const undone = new Map(all.filter((e) => e.undoOf !== '').map((e) => [e.undoOf, e.editId]));
  return all
    .filter(
      (e) =>
        (filter.table === undefined || e.table === filter.table) &&
        (filter.rowId === undefined || e.rowId === filter.rowId),
    )
    .map((e) => ({ ...e, undoneBy: undone.get(e.editId) ?? null }));
}

/** Undo one edit: a new version restoring what it changed. An undo itself is not undone (edit again). */
export function undoEdit(ctx: StudioContext, editId: string): Promise<{ edit: EditRecord; version: number }> {
  checkWritable(ctx);
  return serialized(ctx, async () => {
    const log = EditLog.of(await studioConnection(ctx));
    const edit = (await log.list({ editId }))[0];
    if (!edit)
      throw new HttpError({
        status: 404,
        code: 'unknown_edit',
        field: 'editId',
        message: `no edit '${editId}'`,
      });
    if (edit.kind === 'undo')
      throw new HttpError({
        status: 400,
        code: 'invalid_request',
        field: 'editId',
        message: `edit '${editId}' is an undo; make a new edit instead`,
      });
    const by = await log.undoneBy(editId);
    if (by)
      throw new HttpError({
        status: 409,
        code: 'already_undone',
        field: 'editId',
        message: `edit '${editId}' was already undone by ${by.user} (edit ${by.editId})`,
      });
    if (edit.kind === 'reward' || edit.kind === 'preference') return undoExperienceEdit(ctx, edit);
    return undoTaskEdit(ctx, edit);
  });
}
