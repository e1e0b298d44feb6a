/**
 * The lines of a text, built without making a string per line: a line is a few pieces (`add`, then
 * `line` ends it), the pieces and the newlines gather in one reused buffer, and the buffer is joined
 * into one flat chunk whenever it holds CHUNK_PIECES pieces, chunks into blocks, blocks once at the end.
 * Why: a line made by a template literal is a tree of string pieces (a 32-byte object per `+`),
 * some 100-200 bytes of young-generation allocation per line; each collection that allocation
 * triggers copies whatever else is live (the model), more of it the larger the config. The pieces
 * are mostly strings that live anyway (the model's names, constants, cached numbers): the buffer
 * only points at them. Pure.
 */

/**
 * Pieces per chunk (some 400 lines, a chunk of ~20 KB): the buffer stays a regular object of the
 * young generation (tried: with one of over 128 KB, allocated outside it, the render took ~40 %
 * more CPU).
 */
const CHUNK_PIECES = 2048;

/**
 * Chunks per block (~160 KB): a string of over 128 KB is allocated outside the young generation's
 * semi-spaces, and no collection copies it; young chunks are held only until their block is full.
 * (A 3 MB text held as young chunks until the end was copied by every collection of the render:
 * at 200 VRFs the bytes a collection copied per line were nearly twice those at 50.)
 */
const BLOCK_CHUNKS = 8;

export class LineBuilder {
  /** Put before every line added (a section's placeholder indentation, or none). */
  indent = '';
  /** Texts of BLOCK_CHUNKS chunks each. */
  private readonly blocks: string[] = [];
  /** The chunks since the last block. */
  private readonly chunks: string[] = [];
  /** The pieces since the last chunk; only the first `pieceCount` are current. */
  private readonly pending = new Array<string>(CHUNK_PIECES).fill('');
  private pieceCount = 0;
  /** No piece of the current line added yet: its indentation comes first. */
  private atLineStart = true;
  private count = 0;

  /** Lines added so far. */
  get length(): number {
    return this.count;
  }

  /** Adds a piece to the current line (the builder's indentation before its first piece). */
  add(piece: string): this {
    if (this.atLineStart) {
      this.atLineStart = false;
      if (this.indent !== '') this.pending[this.pieceCount++] = this.indent;
    }
    this.pending[this.pieceCount++] = piece;
    return this;
  }

  /** Ends the current line with `text` (a whole line when no piece came before it). */
  line(text: string): void {
    this.add(text);
    this.pending[this.pieceCount++] = '\n';
    this.atLineStart = true;
    this.count++;
    if (this.pieceCount >= CHUNK_PIECES) this.flush();
  }

  /** The lines, each ended by a newline (no line: one empty line, as `[].join('\n') + '\n'`). */
  text(): string {
    if (this.count === 0) return '\n';
    this.flush();
    if (this.chunks.length > 0) this.joinChunks();
    const all = this.blocks.join('');
    this.blocks.length = 0;
    this.count = 0;
    return all;
  }

  private flush(): void {
    // Pieces left from the previous chunk past the current ones are blanked, not cut off: the
    // buffer keeps its size (a line of many pieces may have grown it past CHUNK_PIECES).
    this.pending.fill('', this.pieceCount);
    this.chunks.push(this.pending.join(''));
    this.pieceCount = 0;
    if (this.chunks.length === BLOCK_CHUNKS) this.joinChunks();
  }

  private joinChunks(): void {
    this.blocks.push(this.chunks.join(''));
    this.chunks.length = 0;
  }
}
