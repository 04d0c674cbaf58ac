#!/usr/bin/env node
// The published executable: the built CLI (npm ci runs the build through the prepare script).
import '../dist/cli.js';
