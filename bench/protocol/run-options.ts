// The command-line options every bench that runs the shared protocol takes (resume, report, output),
// written once so `bench curriculum` and `bench replay` say the same thing.
export const PROTOCOL_RUN_OPTIONS = {
  curves: {
    type: 'string',
    value: 'FILE',
    description:
      'append every finished run to FILE (JSON lines) and reuse the runs already there that the same commit made (resume)',
  },
  'report-only': {
    type: 'boolean',
    description: 'run nothing: report the seeds every method has finished in the --curves file',
  },
  json: { type: 'boolean', description: 'print the results as JSON on stdout' },
  quiet: { type: 'boolean', description: 'no progress lines on stderr' },
} as const;
