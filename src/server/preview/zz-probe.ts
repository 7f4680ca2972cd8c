import Database from 'better-sqlite3';
import { parquetMetadataAsync } from 'hyparquet';

console.log('ok', typeof Database, typeof parquetMetadataAsync, process.memoryUsage().rss >> 20);
const n = Number(process.argv[2] ?? 0);
if (n) {
  const b = Buffer.alloc(n * 1024 * 1024, 1);
  console.log('alloc', b.length >> 20, process.memoryUsage().rss >> 20);
}
