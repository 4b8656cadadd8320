// Creates tasks in a task list folder exactly the way Claude Code 2.1.88's
// createTask does, for interoperability tests: ensure the empty ".lock"
// file (flag wx), lock it with proper-lockfile (30 retries from 5 to
// 100 ms; the lock directory is ".lock.lock"), next id = max(highest
// parseInt of a "*.json" name, parseInt of .highwatermark) + 1, write
// "<id>.json" in place with JSON.stringify(task, null, 2), release.
// usage: node claude_task_writer.js DIR PREFIX COUNT [DESCRIPTION [ACTIVE_FORM]]
// Prints "ACK <id> <subject>" per task written, "DROP <subject> <error>" per
// task it gave up on.
'use strict';
const fs = require('fs');
const path = require('path');
const lockfile = require('proper-lockfile');

const [dir, prefix, countArg, description = '', activeForm] = process.argv.slice(2);
const count = parseInt(countArg, 10);
const LOCK_OPTIONS = { retries: { retries: 30, minTimeout: 5, maxTimeout: 100 } };

async function ensureLockFile() {
  await fs.promises.mkdir(dir, { recursive: true });
  const lockPath = path.join(dir, '.lock');
  try {
    await fs.promises.writeFile(lockPath, '', { flag: 'wx' });
  } catch (e) {
    if (e.code !== 'EEXIST') throw e;
  }
  return lockPath;
}

async function highestFromFiles() {
  let files;
  try {
    files = await fs.promises.readdir(dir);
  } catch {
    return 0;
  }
  let highest = 0;
  for (const file of files) {
    if (!file.endsWith('.json')) continue;
    const id = parseInt(file.replace('.json', ''), 10);
    if (!isNaN(id) && id > highest) highest = id;
  }
  return highest;
}

async function readHighWaterMark() {
  try {
    const v = parseInt((await fs.promises.readFile(path.join(dir, '.highwatermark'), 'utf-8')).trim(), 10);
    return isNaN(v) ? 0 : v;
  } catch {
    return 0;
  }
}

async function createTask(data) {
  const lockPath = await ensureLockFile();
  let release;
  try {
    release = await lockfile.lock(lockPath, LOCK_OPTIONS);
    const [fromFiles, fromMark] = await Promise.all([highestFromFiles(), readHighWaterMark()]);
    const id = String(Math.max(fromFiles, fromMark) + 1);
    const task = { id, ...data };
    await fs.promises.writeFile(path.join(dir, `${id}.json`), JSON.stringify(task, null, 2));
    return id;
  } finally {
    if (release) await release();
  }
}

(async () => {
  for (let i = 0; i < count; i++) {
    const subject = `${prefix}-${i}`;
    try {
      // The object TaskCreate builds, in its key order.
      const id = await createTask({
        subject,
        description,
        activeForm,
        status: 'pending',
        owner: undefined,
        blocks: [],
        blockedBy: [],
        metadata: undefined,
      });
      process.stdout.write(`ACK ${id} ${subject}\n`);
    } catch (e) {
      process.stdout.write(`DROP ${subject} ${e.code || e.message}\n`);
    }
  }
})();
