#!/usr/bin/env -S node --max-semi-space-size=1
// A young generation of 1 MiB, not V8's 16-32: `dashboard` is a long-running server whose RSS at
// 5,000 nodes is otherwise mostly that space (npm run bench dashboard: 178 -> 143 MiB; issue 42).
// Short commands lose nothing measurable. (`env -S`: GNU coreutils >= 8.30, BSD/macOS env.)
// npm links a workspace's bin only if the file exists at install time; dist/ is built afterwards
// (root `prepare`, run by `npm ci`), so the linked file is this stub in git.
import '../dist/main.js';
