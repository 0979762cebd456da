import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { ConfigError, errorMessage, WinnowError } from '../core/errors.ts';
import { readYamlFile } from '../core/yaml-file.ts';
import { FileLease } from '../lifecycle/file-lease.ts';
import type { RftConfig } from '../lifecycle/run/rft-config.ts';
import type { RunBuffer } from '../lifecycle/run/rft-parts.ts';
import { parseRftConfig } from '../lifecycle/run/rft-run.ts';
import { runStarter } from '../lifecycle/run/run-plan.ts';
import { defaultRegistries, type RunRegistries } from '../lifecycle/run/run-registries.ts';
import { type BuiltRun, buildRunParts, recordRunStart } from '../lifecycle/run/run-start.ts';
import { RejectedStore } from '../store/rejected-store.ts';
import type { RunRecorder } from '../store/run-table.ts';
import { SelectorStateStore } from '../store/selector-state-store.ts';
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
 * `winnow serve`: validate, then act — the start `winnow run` makes (src/lifecycle/run/run-start.ts):
 * the config is parsed against the same schema, the run planned (id, folder, tables, --resume
 * checks) and every part built, and the port bound, before anything is written. Then the run
 * folder, its stored config and run record are written, the buffer opened, the latest checkpoint
 * loaded, and the routes go live.
 */
export async function startServe(o: StartServeOptions): Promise<ServeRun> {
  const log = o.log ?? (() => undefined);
  checkBinding(o.host, o.token);
  const abs = resolve(o.configFile);
  const baseDir = dirname(abs);
  const registries = o.registries ?? defaultRegistries();
  const config = readServeConfig(abs, registries);
  const seed = o.seed ?? config.seed;
  const built = await buildRunParts(config, seed, {
    baseDir,
    configFile: abs,
    dbDir: o.dbDir,
    runsDir: o.runsDir,
    runDir: o.runDir,
    runId: o.runId,
    resume: o.resume,
    // planRun refuses to resume a run that winnow run started, and vice versa.
    startedBy: 'serve',
    registries,
    log,
  });
  const { http, address } = await bindServer(o, built, log);
  // ---- validated: from here on, act. One owner per run whatever the mode: a run or table another
  // process holds (`winnow run`, `--queue`, another serve) is refused, naming the holder, first.
  const start: ServeStart = { config: { ...config, seed }, baseDir, built, http, address, log };
  const opened: OpenedServe = {};
  try {
    opened.lease = FileLease.acquire({
      dbDir: built.plan.dbDir,
      runId: built.plan.runId,
      bufferTable: built.plan.bufferTable,
      mode: 'winnow serve',
    });
    const live = await openServeRun(start, opened, o.winnowVersion ?? 'unknown');
    return liveServeRun(start, opened as Required<OpenedServe>, live);
  } catch (err) {
    // A start that fails after the port was bound must not leave the process listening.
    await http.close();
    await opened.buffer?.close().catch(() => undefined);
    built.prepared.parts.dispose?.();
    await opened.recorder?.mark('failed', 0, { error: errorMessage(err) }).catch(() => undefined);
    opened.lease?.releaseSync();
    throw err;
  }
}

/** Read the config file and parse it as an RFT config (serve has nothing to serve from a task pipeline). */
function readServeConfig(abs: string, registries: RunRegistries): RftConfig {
  const raw = readYamlFile(abs);
  const kind = raw && typeof raw === 'object' && 'kind' in raw ? (raw as { kind: unknown }).kind : undefined;
  if (kind !== 'rft')
    throw new ConfigError({
      path: 'kind',
      file: abs,
      message: `winnow serve needs an RFT config (kind: rft), got ${kind === undefined ? 'no kind' : `kind: ${String(kind)}`}`,
      hint: 'serve opens a run’s task set, selector and buffer; a task pipeline has none',
    });
  return parseRftConfig(raw, abs, registries);
}

/** Bind the port (the last check before acting): a port that is taken stops the start, the parts disposed. */
async function bindServer(
  o: StartServeOptions,
  built: BuiltRun,
  log: (line: string) => void,
): Promise<{ http: ServeHttpServer; address: AddressInfo }> {
  const http = new ServeHttpServer({
    maxBodyBytes: o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    token: o.token,
    log,
  });
  const address = await http.listen(o.host, o.port).catch((err: NodeJS.ErrnoException) => {
    built.prepared.parts.dispose?.();
    throw new WinnowError(
      `cannot listen on ${o.host}:${o.port}: ${err.code ?? errorMessage(err)}${err.code === 'EADDRINUSE' ? ' (the port is taken: pick another --port, or 0 for a free one)' : ''}`,
    );
  });
  return { http, address };
}

/** A validated serve start: the config as the run uses it (seed applied), its built parts, the bound server. */
interface ServeStart {
  config: RftConfig;
  baseDir: string;
  built: BuiltRun;
  http: ServeHttpServer;
  address: AddressInfo;
  log: (line: string) => void;
}

/** What the acts of a start opened, for the cleanup of a start that fails part way. */
interface OpenedServe {
  lease?: FileLease;
  recorder?: RunRecorder;
  buffer?: RunBuffer;
}

/** The acts of a start, in order: record the run, open the buffer and the session, route the server. */
async function openServeRun(
  s: ServeStart,
  out: OpenedServe,
  winnowVersion: string,
): Promise<{ session: ServeSession; restored: boolean }> {
  const { config, built, log } = s;
  const { plan, prepared } = built;
  const recorder = await recordRunStart(built, {
    config,
    seed: config.seed,
    baseDir: s.baseDir,
    fixed: { [SERVE_MARK]: true },
    log,
  });
  out.recorder = recorder;
  await recorder.mark('running', 0, {});
  const rejected = await RejectedStore.open(plan.dbDir);
  if (prepared.rejected.length > 0 && !plan.resume) {
    rejected.add(prepared.rejected);
    await rejected.flush();
  }
  const parts = prepared.parts;
  const buffer = await prepared.openBuffer();
  out.buffer = buffer;
  const checkpoints = new ServeCheckpoints({
    runDir: plan.runDir,
    runId: plan.runId,
    configHash: plan.configHash,
    seed: config.seed,
    selectorName: selectorName(config.selector),
    selectorStates: await SelectorStateStore.open(plan.dbDir),
  });
  const e = config.explorer;
  const result = await ServeSession.open({
    runId: plan.runId,
    parts: { tasks: parts.tasks, selector: parts.selector, experienceGraph: parts.experienceGraph, buffer },
    rejected,
    checkpoints,
    defaultSelect: e.batchTasks + e.extraGroups,
    defaultSample: config.lifecycle.trainBatch ?? e.batchTasks * e.repeat,
  });
  s.http.setRouter(new Router(serveRoutes(result.session, winnowVersion)));
  log(
    `run: ${plan.runId}${plan.resume ? ' (resume)' : ''}; selector ${selectorName(config.selector)}, ${parts.tasks.length} task(s)`,
  );
  if (result.restored) log(`continuing from checkpoint revision ${result.session.revision}`);
  return result;
}

/** The running server: where it listens, and how it stops (the run recorded as interrupted, resumable). */
function liveServeRun(
  s: ServeStart,
  opened: Required<OpenedServe>,
  live: { session: ServeSession; restored: boolean },
): ServeRun {
  const { plan, prepared } = s.built;
  const { session } = live;
  const { address } = s;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let stopping: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    host: address.address,
    port: address.port,
    runId: plan.runId,
    runDir: plan.runDir,
    dbDir: plan.dbDir,
    restored: live.restored,
    session,
    stop(reason) {
      stopping ??= (async () => {
        await s.http.close();
        await session.idle();
        try {
          await opened.recorder.mark('interrupted', 0, { reason, revision: session.revision });
        } finally {
          await opened.buffer.close().catch(() => undefined);
          prepared.parts.dispose?.();
          opened.lease.releaseSync();
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
