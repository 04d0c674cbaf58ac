#!/usr/bin/env node
// The published executable: the built CLI (built by `npm run build`; `npm pack` builds it through the prepack script).
import '../dist/cli.js';
