export * from './export-schema.ts';
export * from './export-trainer.ts';
export * from './trainer.ts';
