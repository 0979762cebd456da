#!/usr/bin/env node
// The CLI entry. Node >= 22.18 runs TypeScript sources directly (type stripping),
// so the package ships its sources and needs no build step.
import '../src/cli/main.ts';
