#!/usr/bin/env node
// The `claims` bin. Everything it decides lives in ../batch or the client; this file only runs it.
import { runCli } from './program.js';

process.exitCode = await runCli(process.argv.slice(2));
