export * from './export-schema.ts';
export * from './export-trainer.ts';
export * from './external/index.ts';
export * from './registry.ts';
export * from './trainer.ts';
export * from './trainer-definition.ts';
