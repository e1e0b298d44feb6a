#!/usr/bin/env node
// npm links a workspace's bin only if the file exists at install time; dist/ is built afterwards
// (root `prepare`, run by `npm ci`), so the linked file is this stub in git. dist/main.js runs only
// when it is the entry point (process.argv[1]), so tests can import it: name it as the entry point.
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

process.argv[1] = fileURLToPath(new URL('../dist/main.js', import.meta.url));
await import('../dist/main.js');
