// Moved to src/store/arrow-take.ts (in-process runs take kept rows too); kept here for the scale modules' imports.
export { type RowRange, takeRanges } from '../store/arrow-take.ts';
