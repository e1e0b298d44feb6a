/**
 * The lines of a text, built without keeping one string per line alive: lines gather in a short
 * buffer that is joined into one flat chunk every CHUNK_LINES lines, chunks into one block every
 * BLOCK_CHUNKS chunks, and the blocks are joined once at the end. Why: a line made by a template
 * literal is a tree of string pieces; the 60,000 lines of a 200-VRF frr.conf kept alive until the
 * final join made every young-generation collection during the render copy all of them, so the
 * collector's work grew with the size times the number of collections (the render was
 * superlinear). A chunk is one object the collector copies cheaply; a block is not copied at all.
 * (Tried: lines given as pieces into one buffer, no string per line: a quarter less allocation,
 * but joining the pieces cost more CPU than the collections it saved.) Pure.
 */

/** Lines per chunk: a chunk (~50 KB) stays a regular young-generation object. */
const CHUNK_LINES = 1024;

/**
 * Chunks per block (~200 KB): a string of over 128 KB is allocated outside the young generation's
 * semi-spaces, where no collection copies it, so at most BLOCK_CHUNKS chunks of the text are young
 * at a time. (All of a 3 MB text held as young chunks until the end: at 200 VRFs a collection
 * copied nearly twice the bytes per line it copied at 50.)
 */
const BLOCK_CHUNKS = 4;

export class LineBuilder {
  /** Put before every line added (a section's placeholder indentation, or none). */
  indent = '';
  /** Texts of BLOCK_CHUNKS chunks each. */
  private readonly blocks: string[] = [];
  /** The chunks since the last block. */
  private readonly chunks: string[] = [];
  /** The lines since the last chunk: one array, made once at its full size and reused. */
  private readonly pending = new Array<string>(CHUNK_LINES);
  private pendingCount = 0;
  private count = 0;

  /** Lines added so far. */
  get length(): number {
    return this.count;
  }

  /** Adds one line (the builder's indentation first). */
  line(text: string): void {
    this.pending[this.pendingCount++] = this.indent === '' ? text : this.indent + text;
    this.count++;
    if (this.pendingCount === CHUNK_LINES) this.flush();
  }

  /** The lines, each ended by a newline (no line: one empty line, as `[].join('\n') + '\n'`). */
  text(): string {
    if (this.count === 0) return '\n';
    // The empty last line gives the final newline without another copy of the whole text (a full
    // buffer was flushed by the line that filled it).
    this.pending[this.pendingCount++] = '';
    this.flush();
    if (this.chunks.length > 0) this.joinChunks();
    const all = this.blocks.join('\n');
    this.blocks.length = 0;
    this.count = 0;
    return all;
  }

  private flush(): void {
    const full = this.pendingCount === CHUNK_LINES;
    this.chunks.push((full ? this.pending : this.pending.slice(0, this.pendingCount)).join('\n'));
    this.pendingCount = 0;
    if (this.chunks.length === BLOCK_CHUNKS) this.joinChunks();
  }

  private joinChunks(): void {
    this.blocks.push(this.chunks.join('\n'));
    this.chunks.length = 0;
  }
}
