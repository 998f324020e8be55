// SQLite's write-ahead log applied to a copy of its database file, as a checkpoint would: a Hermes home copied while
// the gateway runs keeps its newest rows in state.db-wal, and sql.js reads the main file alone. The format is SQLite's
// documented one (https://sqlite.org/fileformat2.html#the_write_ahead_log): a 32-byte header, then frames of a 24-byte
// header and one page. Only frames up to the last valid commit count; a torn or stale tail is ignored, as SQLite does.

const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
const MAGIC_LITTLE_ENDIAN = 0x377f0682;
const MAGIC_BIG_ENDIAN = 0x377f0683;

export interface AppliedWal {
  /** The database with every committed frame written in: readable as it was at the log's last commit. */
  database: Buffer;
  /** Transactions and frames taken from the log (0 when it held none that count). */
  transactions: number;
  frames: number;
}

/** SQLite's WAL checksum over `data` (a multiple of 8 bytes), continuing from `[s0, s1]`. */
function walChecksum(data: Buffer, bigEndian: boolean, s0: number, s1: number): [number, number] {
  for (let offset = 0; offset < data.length; offset += 8) {
    const x0 = bigEndian ? data.readUInt32BE(offset) : data.readUInt32LE(offset);
    const x1 = bigEndian ? data.readUInt32BE(offset + 4) : data.readUInt32LE(offset + 4);
    s0 = (s0 + x0 + s1) >>> 0;
    s1 = (s1 + x1 + s0) >>> 0;
  }
  return [s0, s1];
}

/**
 * `database` with the committed frames of `wal` applied. A log whose header does not check out (another file, a
 * log reset since) is refused with an Error saying so; an empty log changes nothing.
 */
export function applyWal(database: Buffer, wal: Buffer): AppliedWal {
  if (wal.length === 0) return { database, transactions: 0, frames: 0 };
  if (wal.length < WAL_HEADER_BYTES) throw new Error(`the write-ahead log is ${wal.length} bytes, shorter than its 32-byte header`);
  const magic = wal.readUInt32BE(0);
  if (magic !== MAGIC_LITTLE_ENDIAN && magic !== MAGIC_BIG_ENDIAN) throw new Error("the write-ahead log does not start with SQLite's WAL magic number");
  const bigEndian = magic === MAGIC_BIG_ENDIAN;
  const pageSize = wal.readUInt32BE(8);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) throw new Error(`the write-ahead log names page size ${pageSize}`);
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  let [s0, s1] = walChecksum(wal.subarray(0, 24), bigEndian, 0, 0);
  if (s0 !== wal.readUInt32BE(24) || s1 !== wal.readUInt32BE(28)) throw new Error("the write-ahead log's header checksum does not match");

  // Frames are valid while their salts match the header and their checksums chain; pages count up to the last commit.
  const pending = new Map<number, Buffer>();
  const committed = new Map<number, Buffer>();
  let committedPages = 0;
  let transactions = 0;
  let frames = 0;
  let pendingFrames = 0;
  for (let offset = WAL_HEADER_BYTES; offset + FRAME_HEADER_BYTES + pageSize <= wal.length; offset += FRAME_HEADER_BYTES + pageSize) {
    const header = wal.subarray(offset, offset + FRAME_HEADER_BYTES);
    if (header.readUInt32BE(8) !== salt1 || header.readUInt32BE(12) !== salt2) break;
    const page = wal.subarray(offset + FRAME_HEADER_BYTES, offset + FRAME_HEADER_BYTES + pageSize);
    [s0, s1] = walChecksum(header.subarray(0, 8), bigEndian, s0, s1);
    [s0, s1] = walChecksum(page, bigEndian, s0, s1);
    if (s0 !== header.readUInt32BE(16) || s1 !== header.readUInt32BE(20)) break;
    const pageNumber = header.readUInt32BE(0);
    if (pageNumber === 0) break;
    pending.set(pageNumber, page);
    pendingFrames += 1;
    const pagesAfterCommit = header.readUInt32BE(4);
    if (pagesAfterCommit > 0) {
      for (const [number, content] of pending) committed.set(number, content);
      pending.clear();
      committedPages = pagesAfterCommit;
      transactions += 1;
      frames += pendingFrames;
      pendingFrames = 0;
    }
  }
  if (transactions === 0) return { database, transactions: 0, frames: 0 };

  const image = Buffer.alloc(committedPages * pageSize);
  database.copy(image, 0, 0, Math.min(database.length, image.length));
  for (const [number, content] of committed) if (number <= committedPages) content.copy(image, (number - 1) * pageSize);
  // Bytes 18 and 19 say WAL mode (2); the image needs no log any more, so it says rollback journal (1), which a
  // reader without a WAL of its own (sql.js) opens as it is.
  image[18] = 1;
  image[19] = 1;
  return { database: image, transactions, frames };
}
