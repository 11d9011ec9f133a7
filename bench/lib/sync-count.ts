import fs from 'node:fs';

/** `fdatasync` calls made in this process so far (the file store calls `fs.fdatasync` through the module object). */
export let syncCalls = 0;
const realFdatasync = fs.fdatasync;
fs.fdatasync = ((...args: Parameters<typeof fs.fdatasync>) => {
  syncCalls++;
  return realFdatasync(...args);
}) as typeof fs.fdatasync;
