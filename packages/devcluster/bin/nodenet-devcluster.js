#!/usr/bin/env node
// npm links a workspace's bin only if the file exists at install time; dist/ is built afterwards
// (root `prepare`, run by `npm ci`), so the linked file is this stub in git.
import '../dist/main.js';
