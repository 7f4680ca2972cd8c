/** One file of an archive, as the zip thread is told of it (its bytes come by descriptor). */
export interface ZipEntry {
  path: string;
  mtimeMs: number;
  /** Deflated (level 1) or stored. */
  compress: boolean;
  /** Bytes read from the file: its listed size, never beyond. */
  size: number;
}

/** What the server's thread sends a zip thread; `id` names the export. */
export type ToZipThread =
  | { id: number; start: ZipEntry[] }
  /** The file of entry `index` is open: read it at `fd`, which the server's thread closes. */
  | { id: number; opened: number; fd: number }
  | { id: number; openFailed: number; message: string }
  /** The server's thread took one more chunk: the thread may send another. */
  | { id: number; ack: true }
  /** The client left: stop reading, answer `stopped` once no read is in flight. */
  | { id: number; stop: true };

/** What a zip thread sends back. `read`: bytes read from files since its last message. */
export type FromZipThread =
  | { id: number; open: number }
  /** Entry `index` is read: its file may be closed. */
  | { id: number; closed: number; read: number }
  | { id: number; bytes: Uint8Array; read: number }
  | { id: number; done: true; read: number }
  | { id: number; failed: string; read: number }
  | { id: number; stopped: true; read: number };

/** Chunks a zip thread may send before the server's thread has taken them (backpressure). */
export const ZIP_CHUNKS_IN_FLIGHT = 8;
