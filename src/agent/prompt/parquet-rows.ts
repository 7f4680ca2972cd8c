/**
 * The row count of a Parquet file from its footer alone (the last 8 bytes give the footer's
 * length, the footer is Thrift's compact encoding of `FileMetaData`, whose field 3 is
 * `num_rows`), so a prompt can say how large a file is without reading it. Undefined for
 * anything that is not a well-formed footer: the count is a courtesy, never an error.
 */
export function parquetRowsFromFooter(footer: Buffer): number | undefined {
  try {
    const reader = new CompactReader(footer);
    let id = 0;
    for (;;) {
      const header = reader.byte();
      const type = header & 0x0f;
      if (type === 0) return undefined;
      const delta = header >> 4;
      id = delta ? id + delta : reader.zigzag();
      if (id === 3 && type === 6) {
        const rows = reader.zigzagBig();
        return rows >= 0n && rows <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(rows) : undefined;
      }
      reader.skip(type);
    }
  } catch {
    return undefined;
  }
}

/** The footer's length from a file's last 8 bytes (`<length LE32>PAR1`), or undefined. */
export function parquetFooterLength(tail: Buffer): number | undefined {
  if (tail.length !== 8 || tail.toString('latin1', 4) !== 'PAR1') return undefined;
  return tail.readUInt32LE(0);
}

class CompactReader {
  private at = 0;
  constructor(private readonly bytes: Buffer) {}

  byte(): number {
    if (this.at >= this.bytes.length) throw new RangeError('footer ended');
    return this.bytes[this.at++]!;
  }

  varint(): bigint {
    let value = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const b = this.byte();
      value |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return value;
    }
    throw new RangeError('varint too long');
  }

  zigzagBig(): bigint {
    const v = this.varint();
    return (v >> 1n) ^ -(v & 1n);
  }

  zigzag(): number {
    return Number(this.zigzagBig());
  }

  advance(count: number): void {
    if (count < 0 || this.at + count > this.bytes.length) throw new RangeError('footer ended');
    this.at += count;
  }

  skip(type: number, depth = 0): void {
    if (depth > 32) throw new RangeError('footer nested too deep');
    switch (type) {
      case 1:
      case 2:
        return;
      case 3:
        this.advance(1);
        return;
      case 4:
      case 5:
      case 6:
        this.varint();
        return;
      case 7:
        this.advance(8);
        return;
      case 8:
        this.advance(Number(this.varint()));
        return;
      case 9:
      case 10: {
        const header = this.byte();
        const size = header >> 4 === 15 ? Number(this.varint()) : header >> 4;
        const element = header & 0x0f;
        // Booleans inside a list take one byte each.
        for (let i = 0; i < size; i++)
          element === 1 || element === 2 ? this.advance(1) : this.skip(element, depth + 1);
        return;
      }
      case 11: {
        const size = Number(this.varint());
        if (size === 0) return;
        const types = this.byte();
        for (let i = 0; i < size; i++) {
          this.skip(types >> 4, depth + 1);
          this.skip(types & 0x0f, depth + 1);
        }
        return;
      }
      case 12:
        for (;;) {
          const header = this.byte();
          if ((header & 0x0f) === 0) return;
          if (header >> 4 === 0) this.zigzag();
          this.skip(header & 0x0f, depth + 1);
        }
      default:
        throw new RangeError(`unknown Thrift type ${type}`);
    }
  }
}
