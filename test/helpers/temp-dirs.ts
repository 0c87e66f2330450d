/**
 * Every test file's temporary files in a directory of its own, removed when the file is done: a
 * service's DATA_DIR is ~40 MB, and the suite used to leave dozens behind in the temp directory.
 * Tests keep calling `tmpdir()` / `mkdtemp` as usual: TMPDIR points into this file's directory, inside
 * the run's directory that global-setup.ts made (and removes at the end, with whatever a file left).
 * A setup file: it runs before each test file, whose module code then already sees the new TMPDIR.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { RUN_DIR_ENV } from './run-dir.ts';

const runDir = process.env[RUN_DIR_ENV];
if (runDir) {
  const fileDir = mkdtempSync(join(runDir, 'file-'));
  process.env.TMPDIR = fileDir;
  afterAll(() => {
    process.env.TMPDIR = runDir;
    rmSync(fileDir, { recursive: true, force: true, maxRetries: 3 });
  });
}
