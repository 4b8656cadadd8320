// Appends messages to an inbox exactly the way Claude Code 2.1.88's
// writeToMailbox does, for interoperability tests and benchmarks.
// usage: node claude_inbox_writer.js INBOX FROM PREFIX COUNT
'use strict';
const fs = require('fs');
const lockfile = require('proper-lockfile');

const [inbox, from, prefix, countArg] = process.argv.slice(2);
const count = parseInt(countArg, 10);
const LOCK_OPTIONS = { retries: { retries: 10, minTimeout: 5, maxTimeout: 100 } };

async function readMailbox() {
  try {
    return JSON.parse(await fs.promises.readFile(inbox, 'utf-8'));
  } catch (e) {
    if (e.code === 'ENOENT') return [];
    throw e;
  }
}

async function writeOne(text) {
  try {
    await fs.promises.writeFile(inbox, '[]', { encoding: 'utf-8', flag: 'wx' });
  } catch (e) {
    if (e.code !== 'EEXIST') throw e;
  }
  let release;
  try {
    release = await lockfile.lock(inbox, { lockfilePath: `${inbox}.lock`, ...LOCK_OPTIONS });
    const messages = await readMailbox();
    messages.push({ from, text, timestamp: new Date().toISOString(), read: false });
    await fs.promises.writeFile(inbox, JSON.stringify(messages, null, 2), 'utf-8');
  } finally {
    if (release) await release();
  }
}

(async () => {
  for (let i = 0; i < count; i++) {
    const text = `${prefix}-${i}`;
    try {
      await writeOne(text);
      process.stdout.write(`ACK ${text}\n`);
    } catch (e) {
      process.stdout.write(`DROP ${text} ${e.code || e.message}\n`);
    }
  }
})();
