// The pool-regime options of `winnow bench curriculum` (issue #22's regime sweep), in a light
// module: spec.ts spreads them into the command's options.
export const POOL_REGIME_OPTIONS = {
  'pool-unusable': {
    type: 'number',
    value: 'X',
    min: 0,
    max: 0.95,
    description:
      "run on a seeded sub-pool in which a share X of the tasks is unusable at the start (the warm start's exact pass rate < 0.05 or > 0.95; too-easy and too-hard in the full pool's proportion), the rest usable",
  },
  'pool-tasks': {
    type: 'int',
    value: 'N',
    min: 10,
    default: 350,
    description:
      'with --pool-unusable: tasks in the sub-pool (the full pool has 286 usable and 514 unusable tasks)',
  },
} as const;
