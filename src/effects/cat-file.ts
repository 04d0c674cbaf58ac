/**
 * Incremental parser of `git cat-file --batch` output: answers arrive as `<name> <type> <size>\n`,
 * then `<size>` bytes of content and a newline (or `<name> missing\n`). Chunks are fed as they come
 * from the pipe and each answer is handed out as its own Buffer, so a long run of large blobs never
 * becomes one string or one buffer.
 */

const HEADER = /^([0-9a-f]{40,64}) ([a-z]+) (\d+)$/;

/** One answer: the object's name, type and content, or `null` when git reported it missing or ambiguous. */
export type BatchAnswer = { readonly name: string; readonly type: string; readonly content: Buffer } | null;

/** Feeds `cat-file --batch` output chunk by chunk and calls `onAnswer` once per complete answer. */
export class CatFileBatchParser {
  private pending: Buffer[] = [];
  private pendingLength = 0;
  /** Type and size of the answer whose content is being collected, or `null` while reading a header. */
  private current: { name: string; type: string; size: number } | null = null;

  /** @param onAnswer called with each answer, in request order */
  constructor(private readonly onAnswer: (answer: BatchAnswer) => void) {}

  /** Feeds the next chunk of output. */
  push(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingLength += chunk.length;
    for (;;) {
      if (this.current === null) {
        const header = this.takeLine();
        if (header === null) return;
        const match = HEADER.exec(header);
        if (match === null) {
          this.onAnswer(null); // `<name> missing` or `<name> ambiguous`
          continue;
        }
        this.current = { name: match[1] as string, type: match[2] as string, size: Number(match[3]) };
      }
      // The content is followed by one newline.
      if (this.pendingLength < this.current.size + 1) return;
      const all = this.take(this.current.size + 1);
      const { name, type, size } = this.current;
      const answer = { name, type, content: all.subarray(0, size) };
      this.current = null;
      this.onAnswer(answer);
    }
  }

  /** True when no partial answer is buffered. */
  get idle(): boolean {
    return this.current === null && this.pendingLength === 0;
  }

  private takeLine(): string | null {
    let offset = 0;
    for (const chunk of this.pending) {
      const end = chunk.indexOf(0x0a);
      if (end >= 0) {
        const line = this.take(offset + end + 1);
        return line.subarray(0, line.length - 1).toString('utf8');
      }
      offset += chunk.length;
    }
    return null;
  }

  private take(length: number): Buffer {
    const joined = this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending);
    const taken = joined.subarray(0, length);
    const rest = joined.subarray(length);
    this.pending = rest.length > 0 ? [rest] : [];
    this.pendingLength = rest.length;
    return taken;
  }
}
