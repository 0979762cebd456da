import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { monitorRegistry } from '../../src/lifecycle/run/monitors/builtin.ts';
import { tensorboardMonitor } from '../../src/lifecycle/run/monitors/tensorboard.ts';
import { crc32c, maskedCrc32c } from '../../src/lifecycle/run/monitors/tensorboard-events.ts';
import { runRft } from '../../src/lifecycle/run/rft-run.ts';
import type { StepRecord } from '../../src/lifecycle/run/step-record.ts';
import { missingPython, runPython } from '../helpers/python.ts';
import { tempDir } from '../helpers/tmp.ts';
import { readMetrics, scriptedConfig, scriptedRegistries } from './evaluation-scripted.ts';

const dir = tempDir('winnow-tensorboard-');

// ---- An independent reader: bitwise CRC-32C and a generic protobuf walker (no tables, no schema).

function crc32cBitwise(bytes: Uint8Array): number {
  let crc = ~0 >>> 0;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return ~crc >>> 0;
}
const mask = (c: number) => ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;

/** Protobuf fields of `buf`: [field number, wire type, value] (varint as number, fixed64/32 as bytes). */
function fields(buf: Buffer): Array<[number, number, number | Buffer]> {
  const out: Array<[number, number, number | Buffer]> = [];
  let i = 0;
  const varint = () => {
    let v = 0;
    let mul = 1;
    for (;;) {
      const b = buf[i++]!;
      v += (b & 0x7f) * mul;
      mul *= 128;
      if (b < 0x80) return v;
    }
  };
  while (i < buf.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key % 8;
    const take = (n: number) => {
      const bytes = buf.subarray(i, i + n);
      i += n;
      return bytes;
    };
    if (wire === 0) out.push([field, wire, varint()]);
    else if (wire === 1) out.push([field, wire, take(8)]);
    else if (wire === 5) out.push([field, wire, take(4)]);
    else if (wire === 2) out.push([field, wire, take(varint())]);
    else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}

interface DecodedEvent {
  wallTime: number;
  step: number;
  fileVersion?: string;
  scalars: Array<[string, number]>;
}

/** Every record of an events file, both CRCs checked, each decoded as an Event. */
function readEvents(file: string): DecodedEvent[] {
  const b = readFileSync(file);
  const events: DecodedEvent[] = [];
  let at = 0;
  while (at < b.length) {
    const len = Number(b.readBigUInt64LE(at));
    expect(b.readUInt32LE(at + 8)).toBe(mask(crc32cBitwise(b.subarray(at, at + 8))));
    const data = b.subarray(at + 12, at + 12 + len);
    expect(b.readUInt32LE(at + 12 + len)).toBe(mask(crc32cBitwise(data)));
    at += 12 + len + 4;
    const e: DecodedEvent = { wallTime: 0, step: 0, scalars: [] };
    for (const [f, , v] of fields(data)) {
      if (f === 1) e.wallTime = (v as Buffer).readDoubleLE(0);
      else if (f === 2) e.step = v as number;
      else if (f === 3) e.fileVersion = (v as Buffer).toString('utf8');
      else if (f === 5)
        for (const [vf, , value] of fields(v as Buffer)) {
          expect(vf).toBe(1);
          let tag = '';
          let x = Number.NaN;
          for (const [ff, , fv] of fields(value as Buffer)) {
            if (ff === 1) tag = (fv as Buffer).toString('utf8');
            if (ff === 2) x = (fv as Buffer).readFloatLE(0);
          }
          e.scalars.push([tag, x]);
        }
    }
    events.push(e);
  }
  return events;
}

describe('CRC-32C', () => {
  it('matches the standard check value and the masking TFRecord uses', () => {
    const check = Buffer.from('123456789');
    expect(crc32c(check)).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa);
    expect(maskedCrc32c(check)).toBe(mask(0xe3069283));
  });
});

describe('the tensorboard monitor', () => {
  it('is registered and named in the config', () => {
    expect(monitorRegistry().get('tensorboard').name).toBe('tensorboard');
  });

  const runDir = join(dir, 'run-tb');
  const eventsDir = join(runDir, 'tensorboard');
  /** What the events file held each time the run reported a finished step (steps, in file order). */
  const whileRunning: number[][] = [];
  const ready = (async () => {
    const config = scriptedConfig(dir, 'tb', { monitors: ['html_report', 'tensorboard'] });
    const report = await runRft(config, {
      baseDir: dir,
      dbDir: join(dir, 'db'),
      runDir,
      registries: scriptedRegistries(),
      onStep: () => {
        const names = readdirSync(eventsDir);
        whileRunning.push(
          names.length === 1 ? readEvents(join(eventsDir, names[0]!)).map((e) => e.step) : [],
        );
      },
    });
    const [name] = readdirSync(eventsDir);
    return { report, file: join(eventsDir, name!) };
  })();

  it('grows while the run goes: after N steps the file holds step 0 and steps 1…N, in order', async () => {
    const { report } = await ready;
    expect(report.steps).toBe(4);
    // The first event is the file version (step 0), then the measurements before training (step 0).
    expect(whileRunning).toEqual([
      [0, 0, 1],
      [0, 0, 1, 2],
      [0, 0, 1, 2, 3],
      [0, 0, 1, 2, 3, 4],
    ]);
  });

  it('writes every step record number as a scalar, step 0 from the measurements before training, CRCs valid', async () => {
    const { report, file } = await ready;
    expect(report.files).toContain(file);
    expect(file).toMatch(/\/tensorboard\/events\.out\.tfevents\.\d+\..+\.\d+\.\d+$/);
    const events = readEvents(file);
    expect(events[0]).toMatchObject({ step: 0, fileVersion: 'brain.Event:2', scalars: [] });
    const metrics = readMetrics(runDir);
    expect(events.slice(1).map((e) => e.step)).toEqual([0, 1, 2, 3, 4]);
    expect(events[1]!.scalars).toEqual(
      Object.entries(report.initialEvaluation!).map(([k, v]) => [k, Math.fround(v)]),
    );
    metrics.forEach((rec, i) => {
      const expected = Object.entries(rec)
        .filter(([k, v]) => k !== 'step' && typeof v === 'number' && Number.isFinite(v))
        .map(([k, v]) => [k, Math.fround(v as number)]);
      expect(events[i + 2]!.step).toBe(rec.step);
      expect(events[i + 2]!.scalars).toEqual(expected);
    });
    // Spot-check values the scripted model fixes: 12 rollouts a step, grpo's advantage spread 0.5.
    const step2 = new Map(events[3]!.scalars);
    expect(step2.get('rollouts')).toBe(12);
    expect(step2.get('exp/grpo/advantage_std')).toBe(0.5);
    const walls = events.slice(1).map((e) => e.wallTime);
    expect([...walls].sort((a, b) => a - b)).toEqual(walls);
    expect(Math.abs(walls.at(-1)! - Date.now() / 1000)).toBeLessThan(120);
  });

  it('a resumed run writes a new file: the restored steps first, then the live ones, in order', async () => {
    const config = scriptedConfig(dir, 'tb-resume', { monitors: ['tensorboard'] });
    const at = { baseDir: dir, dbDir: join(dir, 'db-resume'), runDir: join(dir, 'run-resume') };
    await runRft(config, { ...at, registries: scriptedRegistries(), stopAfter: 3 });
    const resumed = await runRft(config, { ...at, registries: scriptedRegistries(), resume: true });
    expect(resumed.resumedFrom).toBe(2);
    const files = readdirSync(join(at.runDir, 'tensorboard'))
      .sort((a, b) => Number(a.split('.').at(-1)) - Number(b.split('.').at(-1)))
      .map((f) => readEvents(join(at.runDir, 'tensorboard', f)).map((e) => e.step));
    // The stopped run: file version, step 0, steps 1–3 (step 3 is re-run after the step-2 checkpoint).
    expect(files).toEqual([
      [0, 0, 1, 2, 3],
      [0, 1, 2, 3, 4],
    ]);
  });

  it('writes steps told live once, in increasing order, and the rest at the end (NaN and non-numbers left out)', async () => {
    const liveDir = join(dir, 'live');
    const m = await tensorboardMonitor.create(tensorboardMonitor.params.parse({ dir: 'tb' }), {
      runDir: liveDir,
      runId: 'live-1',
      baseDir: dir,
      path: 'monitors[0]',
    });
    const rec = (step: number, meanReward: number) =>
      ({ step, meanReward, trainLoss: Number.NaN, stepMs: 1000, note: 'x' }) as unknown as StepRecord;
    m.onStep!(rec(1, 0.25));
    m.onStep!(rec(2, 0.5));
    const files = await m.onEnd!({
      name: 'live',
      runId: 'live-1',
      config: {},
      history: [rec(1, 0.25), rec(2, 0.5), rec(3, 0.75)],
      initialAccuracy: 0.3,
      describe: {},
      counters: {},
      durationMs: 3000,
    });
    expect(files).toHaveLength(1);
    expect(files[0]!.startsWith(join(liveDir, 'tb', 'events.out.tfevents.'))).toBe(true);
    expect(readEvents(files[0]!).map((e) => [e.step, e.fileVersion ?? null, e.scalars])).toEqual([
      [0, 'brain.Event:2', []],
      [
        1,
        null,
        [
          ['meanReward', 0.25],
          ['stepMs', 1000],
        ],
      ],
      [
        2,
        null,
        [
          ['meanReward', 0.5],
          ['stepMs', 1000],
        ],
      ],
      [
        3,
        null,
        [
          ['meanReward', 0.75],
          ['stepMs', 1000],
        ],
      ],
    ]);
  });

  it.skipIf(
    missingPython(['tensorboard'], 'reading our event file with TensorBoard’s EventAccumulator').length > 0,
  )(
    'TensorBoard’s own EventAccumulator reads the same tags, steps and values',
    async () => {
      const { file } = await ready;
      const script = join(dir, 'read_events.py');
      writeFileSync(
        script,
        [
          'import json, sys',
          'from tensorboard.backend.event_processing.event_accumulator import EventAccumulator',
          'acc = EventAccumulator(sys.argv[1], size_guidance={"scalars": 0})',
          'acc.Reload()',
          'out = {t: [[s.step, s.value] for s in acc.Scalars(t)] for t in acc.Tags()["scalars"]}',
          'print(json.dumps(out))',
        ].join('\n'),
      );
      const r = runPython(script, [file], { timeoutMs: 120_000 });
      expect(r.code, r.stderr).toBe(0);
      const read = JSON.parse(r.stdout) as Record<string, Array<[number, number]>>;
      const ours = new Map<string, Array<[number, number]>>();
      for (const e of readEvents(file))
        for (const [tag, v] of e.scalars) ours.set(tag, [...(ours.get(tag) ?? []), [e.step, v]]);
      expect(Object.keys(read).sort()).toEqual([...ours.keys()].sort());
      for (const [tag, points] of ours) expect(read[tag]).toEqual(points);
      expect(read['eval/alpha/pass@4']!.map(([s]) => s)).toEqual([0, 2, 4]);
    },
    150_000,
  );
});
