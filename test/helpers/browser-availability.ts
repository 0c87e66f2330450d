/**
 * Whether the browser tests can run here. They need Debian's Chromium; on a laptop without it they
 * skip and the run's summary says so in one line, while CI (REQUIRE_BROWSER=1, .ci/run installs
 * Chromium) fails instead, so a missing browser never passes unnoticed where it matters.
 * Kept free of playwright and vitest so the summary reporter can ask too.
 */
import { existsSync } from 'node:fs';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export const browserRequired = () => process.env.REQUIRE_BROWSER === '1';

/** True when the browser tests should skip: no Chromium, and nothing demands one. */
export const skipBrowserTests = () => !existsSync(CHROMIUM) && !browserRequired();

export const BROWSER_SKIPPED_LINE = `Browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH; REQUIRE_BROWSER=1 turns this into a failure).`;
