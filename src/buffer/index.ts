export * from './arrow-codec.ts';
export * from './connection.ts';
export * from './rejected-store.ts';
export * from './run-table.ts';
export * from './sql.ts';
export * from './task-store.ts';
export * from './task-table.ts';
export * from './selector-state-store.ts';
