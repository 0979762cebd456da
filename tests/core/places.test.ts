import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot, resolveDbDir, resolveRunsDir } from '../../src/core/places.ts';
import { tempDir } from '../helpers/tmp.ts';

describe('the database and runs folders are resolved one way', () => {
  const dir = tempDir('winnow-places-');
  const project = join(dir, 'project');
  const pipelines = join(project, 'pipelines');
  mkdirSync(pipelines, { recursive: true });
  writeFileSync(join(project, 'package.json'), '{}');
  const loose = join(dir, 'loose');
  mkdirSync(loose);
  const env = {};

  it('the project folder is the nearest one holding .winnow, package.json or .git', () => {
    expect(projectRoot(pipelines)).toBe(project);
    expect(projectRoot(project)).toBe(project);
    expect(projectRoot(loose)).toBe(loose);
  });

  it('flag, then config key, then environment, then <project>/.winnow', () => {
    const cwd = join(dir, 'elsewhere');
    expect(resolveDbDir({ flag: 'x/db', configValue: '../db', configDir: pipelines, env, cwd })).toBe(
      join(cwd, 'x', 'db'),
    );
    expect(resolveDbDir({ configValue: '../db', configDir: pipelines, env, cwd })).toBe(join(project, 'db'));
    expect(resolveDbDir({ configDir: pipelines, env: { WINNOW_DB: 'envdb' }, cwd })).toBe(join(cwd, 'envdb'));
    // Run from inside pipelines/ or from the project root: the same database.
    expect(resolveDbDir({ configDir: pipelines, env, cwd: pipelines })).toBe(join(project, '.winnow', 'db'));
    expect(resolveDbDir({ configDir: pipelines, env, cwd: project })).toBe(join(project, '.winnow', 'db'));
    expect(resolveRunsDir({ configDir: pipelines, env, cwd })).toBe(join(project, '.winnow', 'runs'));
    expect(resolveRunsDir({ configDir: pipelines, env: { WINNOW_RUNS_DIR: 'r' }, cwd })).toBe(join(cwd, 'r'));
    // Commands without a config start from the current folder.
    expect(resolveDbDir({ env, cwd: pipelines })).toBe(join(project, '.winnow', 'db'));
    expect(resolveDbDir({ env, cwd: loose })).toBe(join(loose, '.winnow', 'db'));
  });
});
