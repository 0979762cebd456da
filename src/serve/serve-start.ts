import { existsSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { RejectedStore } from '../buffer/rejected-store.ts';
import { RunRecorder, RunTable } from '../buffer/run-table.ts';
import { SelectorStateStore } from '../buffer/selector-state-store.ts';
import { writeFileAtomicSync } from '../core/atomic-file.ts';
import { readYamlFile } from '../core/config.ts';
import { ConfigError, errorMessage, WinnowError } from '../core/errors.ts';
import { FileLease } from '../lifecycle/file-lease.ts';
import { prepareRft } from '../lifecycle/rft-build.ts';
import type { RftConfig } from '../lifecycle/rft-config.ts';
import type { RunBuffer } from '../lifecycle/rft-parts.ts';
import { parseRftConfig } from '../lifecycle/rft-run.ts';
import { planRun, RUN_CONFIG_FILE, runStarter, type StoredRunConfig } from '../lifecycle/run-plan.ts';
import { defaultRegistries, type RunRegistries } from '../lifecycle/run-registries.ts';
import { checkBinding } from './bind-policy.ts';
import { DEFAULT_MAX_BODY_BYTES, ServeHttpServer } from './http-server.ts';
import { Router } from './router.ts';
import { serveRoutes } from './routes.ts';
import { ServeCheckpoints } from './serve-checkpoint.ts';
import { ServeSession } from './serve-session.ts';

export interface StartServeOptions {
  configFile: string;
  host: string;
  /** 0 picks a free port (the result says which). */
  port: number;
  token?: string | undefined;
  dbDir?: string | undefined;
  runsDir?: string | undefined;
  runDir?: string | undefined;
  runId?: string | undefined;
  resume?: boolean | undefined;
  seed?: number | undefined;
  maxBodyBytes?: number | undefined;
  winnowVersion?: string;
  registries?: RunRegistries;
  log?: (line: string) => void;
}

export interface ServeRun {
  url: string;
  host: string;
  port: number;
  runId: string;
  runDir: string;
  dbDir: string;
  /** Continued from a checkpoint (else a fresh run, or a resumed run with no request served yet). */
  restored: boolean;
  session: ServeSession;
  /** Stop accepting, finish the request in progress, record the run as interrupted (resumable), close. */
  stop(reason: string): Promise<void>;
}

/** The summary field that marks a run as started by `winnow serve` (its checkpoints are serve checkpoints). */
export const SERVE_MARK = 'serve';

function selectorName(slot: RftConfig['selector']): string {
  return 'type' in slot ? slot.type : `${slot.module}#${slot.export}`;
}

/**
 * `winnow serve`: validate, then act — the way `winnow run` starts an RFT run. The config is parsed
 * against the same schema, the run planned (id, folder, tables, --resume checks) and every part
 * built by prepareRft, and the port bound, before anything is written. Then the run folder, its
 * stored config and run record are written, the buffer opened, the latest checkpoint loaded, and
 * the routes go live.
 */
export async function startServe(o: StartServeOptions): Promise<ServeRun> {
  const log = o.log ?? (() => undefined);
  checkBinding(o.host, o.token);
  const abs = resolve(o.configFile);
  const baseDir = dirname(abs);
  const raw = readYamlFile(abs);
  const kind = raw && typeof raw === 'object' && 'kind' in raw ? (raw as { kind: unknown }).kind : undefined;
  if (kind !== 'rft')
    throw new ConfigError({
      path: 'kind',
      file: abs,
      message: `winnow serve needs an RFT config (kind: rft), got ${kind === undefined ? 'no kind' : `kind: ${String(kind)}`}`,
      hint: 'serve opens a run’s task set, selector and buffer; a task pipeline has none',
    });
  const registries = o.registries ?? defaultRegistries();
  const config = parseRftConfig(raw, abs, registries);
  const seed = o.seed ?? config.seed;
  const plan = await planRun(config, seed, {
    baseDir,
    configFile: abs,
    dbDir: o.dbDir,
    runsDir: o.runsDir,
    runDir: o.runDir,
    runId: o.runId,
    resume: o.resume,
    startedBy: 'serve',
  });
  const { runId, runDir, dbDir, configHash } = plan;
  // planRun (startedBy: serve) refuses to resume a run that winnow run started, and vice versa.
  const previous = plan.resume ? (await RunTable.readAll(dbDir)).find((r) => r.runId === runId) : undefined;
  const prepared = await prepareRft(
    { ...config, seed },
    {
      baseDir,
      configFile: abs,
      dbDir,
      runDir,
      runId,
      bufferTable: plan.bufferTable,
      seed,
      registries,
      log,
    },
  );
  await RunTable.checkSeedIn(dbDir, seed);
  const http = new ServeHttpServer({
    maxBodyBytes: o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    token: o.token,
    log,
  });
  const address = await http.listen(o.host, o.port).catch((err: NodeJS.ErrnoException) => {
    prepared.parts.dispose?.();
    throw new WinnowError(
      `cannot listen on ${o.host}:${o.port}: ${err.code ?? errorMessage(err)}${err.code === 'EADDRINUSE' ? ' (the port is taken: pick another --port, or 0 for a free one)' : ''}`,
    );
  });

  // ---- validated: from here on, act. One owner per run whatever the mode: a run or table another
  // process holds (`winnow run`, `--queue`, another serve) is refused, naming the holder, first.
  const opened: { recorder?: RunRecorder; buffer?: RunBuffer } = {};
  let lease: FileLease | undefined;
  let session: ServeSession;
  let restored: boolean;
  try {
    lease = FileLease.acquire({ dbDir, runId, bufferTable: plan.bufferTable, mode: 'winnow serve' });
    ({ session, restored } = await act(opened));
  } catch (err) {
    // A start that fails after the port was bound must not leave the process listening.
    await http.close();
    await opened.buffer?.close().catch(() => undefined);
    prepared.parts.dispose?.();
    await opened.recorder?.mark('failed', 0, { error: errorMessage(err) }).catch(() => undefined);
    lease?.releaseSync();
    throw err;
  }
  const { recorder, buffer } = opened as Required<typeof opened>;
  const parts = prepared.parts;

  /** The acts of a start, in order; what they opened goes into `out` for the cleanup above. */
  async function act(out: typeof opened): Promise<{ session: ServeSession; restored: boolean }> {
    log(`database: ${dbDir}`);
    log(`run folder: ${runDir}`);
    for (const n of plan.notes) log(n);
    mkdirSync(runDir, { recursive: true });
    const configFileOut = join(runDir, RUN_CONFIG_FILE);
    if (!plan.resume || !existsSync(configFileOut) || plan.changedHarmless.length > 0) {
      const stored: StoredRunConfig = {
        runId,
        configHash,
        bufferTable: plan.bufferTable,
        config: { ...config, seed },
        baseDir,
      };
      writeFileAtomicSync(configFileOut, `${JSON.stringify(stored, null, 2)}\n`);
    }
    const recorder = new RunRecorder(
      await RunTable.open(dbDir),
      { runId, kind: 'rft', name: config.name, configHash, seed },
      {
        ...(previous ? { startedAt: previous.startedAt } : {}),
        fixed: {
          runDir,
          bufferTable: plan.bufferTable,
          pid: process.pid,
          host: hostname(),
          [SERVE_MARK]: true,
        },
      },
    );
    out.recorder = recorder;
    await recorder.mark('running', 0, {});
    const rejected = await RejectedStore.open(dbDir);
    if (prepared.rejected.length > 0 && !plan.resume) {
      rejected.add(prepared.rejected);
      await rejected.flush();
    }
    const parts = prepared.parts;
    const buffer = await prepared.openBuffer();
    out.buffer = buffer;
    const checkpoints = new ServeCheckpoints({
      runDir,
      runId,
      configHash,
      seed,
      selectorName: selectorName(config.selector),
      selectorStates: await SelectorStateStore.open(dbDir),
    });
    const e = config.explorer;
    const result = await ServeSession.open({
      runId,
      parts: { tasks: parts.tasks, selector: parts.selector, experienceGraph: parts.experienceGraph, buffer },
      rejected,
      checkpoints,
      defaultSelect: e.batchTasks + e.extraGroups,
      defaultSample: config.lifecycle.trainBatch ?? e.batchTasks * e.repeat,
    });
    http.setRouter(new Router(serveRoutes(result.session, o.winnowVersion ?? 'unknown')));
    log(
      `run: ${runId}${plan.resume ? ' (resume)' : ''}; selector ${selectorName(config.selector)}, ${parts.tasks.length} task(s)`,
    );
    if (result.restored) log(`continuing from checkpoint revision ${result.session.revision}`);
    return result;
  }

  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let stopping: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    host: address.address,
    port: address.port,
    runId,
    runDir,
    dbDir,
    restored,
    session,
    stop(reason) {
      stopping ??= (async () => {
        await http.close();
        await session.idle();
        try {
          await recorder.mark('interrupted', 0, { reason, revision: session.revision });
        } finally {
          await buffer.close().catch(() => undefined);
          parts.dispose?.();
          lease?.releaseSync();
        }
      })();
      return stopping;
    },
  };
}

/** Whether a run record's summary says `winnow serve` started it. */
export function isServeRun(summary: string): boolean {
  return runStarter(summary) === 'serve';
}
