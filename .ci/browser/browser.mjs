// browser.mjs finds the Chromium the scripts drive: $CHROMIUM, else the
// first of the usual install paths (as internal/browsercheck looks).
import { existsSync } from 'node:fs';

export function browserPath() {
  const candidates = process.env.CHROMIUM ? [process.env.CHROMIUM]
    : ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    console.error('no Chromium found (looked at ' + candidates.join(', ') + '); apt-get install chromium');
    process.exit(3);
  }
  return found;
}
