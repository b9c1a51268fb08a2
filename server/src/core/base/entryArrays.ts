/**
 * Arrays of numbers with one slot per entry or line, made so that the server's memory goes back to
 * the system once a large document is closed.
 *
 * A typed array's bytes come from the C library's `malloc`. glibc serves a block below its mmap
 * threshold from its heap, whose freed middle it never returns, and it raises that threshold to
 * the size of any mapped block that is freed (up to 32 MB), which V8 does within the first second
 * (its code cache's and string table's buffers). An `Int32Array` per entry of the 43 MB session is
 * 200 KB: the analysis made eleven at each structural edit, and V8 frees an old one only in a full
 * collection, so that the heap grew by tens of megabytes of them; after the bench's 36 structural
 * edits the idle server held 110–124 MB 8 s after the close, against 53–58 MB before the open
 * (`malloc_trim`, called from a debugger, gave back all but 5), and 67–70 MB with the arrays below
 * (six runs each over stdio, taking turns). An array of bytes per entry (50 KB there) stays typed.
 *
 * So an array that lives for one call is a typed array made once, in mapped memory, and kept for
 * the next call (`ScratchArray`, one per user, and `StampedMarks`) until no document is left open; the arrays an analysis keeps are made together
 * in memory that V8 maps on its own and unmaps once they are collected (`mappedArrays`); and an array
 * made less often is a JavaScript array of small integers (`keptArray`), which V8 keeps in its own
 * heap, at 8 bytes an element instead of 4 (and slower to make: not for the analysis).
 */

/** An array of `length` elements, each `value`, in V8's heap (see above). */
export function keptArray(length: number, value: number): number[] {
  return new Array<number>(length).fill(value);
}

/** Every scratch array made, so that the server can let them all go (`forgetScratch`). */
const everyScratch: ScratchArray<Int32Array | Uint32Array>[] = [];

/**
 * A kept scratch array of one user: a module makes one per array it needs at once, at its load,
 * and no two users share one, so that a walk that calls another never finds its array overwritten.
 * Its contents are undefined between uses, and it is let go when no document is left open.
 */
export class ScratchArray<A extends Int32Array | Uint32Array> {
  private array: A;

  constructor(private readonly make: (length: number) => A) {
    this.array = make(0);
    everyScratch.push(this);
  }

  /**
   * The array, at least `length` elements long. It grows by a quarter more than asked, so that a
   * document that gains a few lines does not make it again at every edit; a grown one is zeroed.
   */
  take(length: number): A {
    if (this.array.length < length) this.array = this.make(length + (length >> 2));
    return this.array;
  }

  forget(): void {
    this.array = this.make(0);
  }
}

/**
 * Scratch arrays of 32-bit integers, each in a memory of its own (`mappedArrays`): a dozen of them,
 * 200 KB each at 50,000 entries, live from the open to the close, and made in `malloc`'s heap they
 * left holes there when let go that glibc kept after the close (2.5 MB of them over the bench's run,
 * traced). An empty one takes no memory.
 */
export function scratchInts(): ScratchArray<Int32Array> {
  return new ScratchArray((length) => (length === 0 ? new Int32Array(0) : mappedArrays([length])[0]!));
}

/**
 * Marks per entry that each pass tells from the earlier passes' by a new stamp, so that no pass
 * clears them: a pass's marks are the elements that hold its stamp. One user's, like a scratch array.
 */
export class StampedMarks {
  private readonly scratch = new ScratchArray((length) => (length === 0 ? new Uint32Array(0) : new Uint32Array(mappedArrays([length])[0]!.buffer, 0, length)));
  /** The current pass's stamp; it keeps counting when the array is let go, so that no later pass takes an earlier one's. */
  stamp = 0;

  /** A new pass over `length` entries: its stamp, which no element of `marks` holds yet. */
  begin(length: number): number {
    const marks = this.scratch.take(length);
    if (++this.stamp === 0xffffffff) {
      marks.fill(0);
      this.stamp = 1;
    }
    return this.stamp;
  }

  /** The marks, as long as the current pass asked. */
  get marks(): Uint32Array {
    return this.scratch.take(0);
  }
}

/**
 * Lets every scratch array go (the server calls it when no document is left open), and asks for
 * WebAssembly's memory again if it was refused: now, while the server is idle, rather than at the
 * next open's first array, where V8's collections before a refusal go over that document's heap.
 */
export function forgetScratch(): void {
  for (const scratch of everyScratch) scratch.forget();
  if (wasmRefused) wasmRefused = memoryRefused();
}

/** WebAssembly's memory, as far as it is used here (the core is typed without the DOM's library). */
type WasmMemory = new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
const WasmMemory = (globalThis as { WebAssembly?: { Memory?: WasmMemory } }).WebAssembly?.Memory;
/** A WebAssembly memory grows by pages of 64 KiB. */
const WASM_PAGE_BYTES = 64 * 1024;
/**
 * Whether WebAssembly refuses a memory now. Each memory reserves about 10 GiB of address space,
 * which a limit on it (`ulimit -v 6000000`) refuses to every one, and V8 runs full collections of
 * the whole heap before it gives up: 43 ms at the module's load, 0.7–0.8 s at the first array of a
 * 43 MB open (measured over stdio, Node 20), where it was first asked for before.
 */
function memoryRefused(): boolean {
  if (!WasmMemory) return false;
  try {
    new WasmMemory({ initial: 0 });
    return false;
  } catch {
    return true;
  }
}

/**
 * Whether a WebAssembly memory was refused: found at the module's load, while the heap is small, or
 * by a refused call (several calls a structural edit would each pay the refusal); the
 * arrays are then an `ArrayBuffer` at once, until `forgetScratch` finds the memory granted again.
 */
let wasmRefused = memoryRefused();

/**
 * Arrays of the given lengths, zeroed, side by side in one WebAssembly memory: V8 maps it on its own
 * (not through `malloc`) and unmaps it once the last array is collected. Where WebAssembly is not
 * there (`--jitless`) or refuses (no address space left for its reservation), an `ArrayBuffer`.
 * Six arrays of 50,000 elements took 0.84 ms where six typed arrays took 0.27 (its fresh pages are
 * faulted in, where `malloc` reuses its heap's): a structural edit on the 43 MB session pays that.
 */
export function mappedArrays(lengths: readonly number[]): Int32Array[] {
  return mappedParts(lengths, []).ints;
}

/**
 * `mappedArrays`, with arrays of bytes after the integers in the same memory: an analysis's marks
 * per entry (50 KB each at 50,000 entries) made at every structural edit would otherwise come from
 * `malloc`'s heap, where they piled up until a full collection (up to 7.9 MB of zeroed blocks live
 * at once over the bench's edits, traced), and the heap kept their pages after the close.
 */
export function mappedParts(intLengths: readonly number[], byteLengths: readonly number[]): { ints: Int32Array[]; bytes: Uint8Array[] } {
  let total = 0;
  for (const length of intLengths) total += 4 * length;
  for (const length of byteLengths) total += length;
  let buffer: ArrayBuffer;
  try {
    buffer = WasmMemory && !wasmRefused ? new WasmMemory({ initial: Math.ceil(total / WASM_PAGE_BYTES) }).buffer : new ArrayBuffer(total);
  } catch {
    wasmRefused = true;
    buffer = new ArrayBuffer(total);
  }
  const ints: Int32Array[] = [];
  let at = 0;
  for (const length of intLengths) {
    ints.push(new Int32Array(buffer, at, length));
    at += 4 * length;
  }
  const bytes: Uint8Array[] = [];
  for (const length of byteLengths) {
    bytes.push(new Uint8Array(buffer, at, length));
    at += length;
  }
  return { ints, bytes };
}
