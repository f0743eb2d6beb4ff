//! Inflating a member's deflate stream (RFC 1951) straight into the caller's buffer.
//!
//! The decoder is libdeflate's design made resumable: two-level Huffman tables (11 bits for
//! literals and lengths, 8 for distances, sub-tables for longer codes), a 64-bit bit buffer
//! refilled eight bytes at a time, and matches copied in 8- and 16-byte words. What makes it
//! faster than zlib on the data `.npz` files hold is the copy of matches that overlap their
//! source (a run of equal elements is one literal element and a match at distance 8): zlib-rs
//! copies those byte by byte, this decoder a word at a time.
//!
//! It stops wherever the output buffer is full (a match cut there is finished by the next
//! call) and keeps the last 32 KiB it produced, so a match may reach back into an earlier
//! call's buffer. Input comes from a [`BufRead`]: a symbol or block header is decoded only
//! when `MARGIN` bytes are at hand or the input has ended, so decoding never stops inside
//! one; a short tail is carried in an own buffer. At the end of the input the bit buffer is
//! padded with zeros, and a stream that consumed any of them is [`Fail::Truncated`].
//!
//! Hostile streams: every code is checked as zlib checks it (over-subscribed and incomplete
//! codes, repeats past the lengths, a missing end-of-block code, unused symbols, distances
//! before the start), each a [`Fail::Invalid`] with zlib's message; no input can make it
//! write past the buffer it was given, loop without consuming input, or panic.
//!
//! Unsafe here: calling the fast loop built for BMI2 (`symbols_fast_bmi2`) once the processor
//! is known to have it. The decoding itself is safe Rust.

#![allow(unsafe_code)]

use std::io::{self, BufRead};

/// The deflate window: the furthest back a match may reach.
const WINDOW: usize = 32 << 10;

/// The input at hand before a symbol or block header is decoded (a dynamic block's header
/// takes at most 562 bytes, a symbol 6), unless the input has ended.
const MARGIN: usize = 1 << 10;

/// The most input carried in [`Inflater`]'s own buffer.
const CARRY: usize = 64 << 10;

/// Bits indexing the main literal/length table, the distance table and the code length
/// ("precode") table; longer codes go through sub-tables.
const LIT_BITS: u32 = 11;
const DIST_BITS: u32 = 8;
const PRE_BITS: u32 = 7;

/// The largest tables those root sizes need for any valid code (zlib's `enough 288 11 15`
/// and `enough 32 8 15`); a table that would grow past them is a code no valid stream has.
const LIT_ENOUGH: usize = 2342;
const DIST_ENOUGH: usize = 402;

/// A table entry: bits 0-7 the bits a decode consumes (the codeword and the extra bits after
/// it, consumed at once), bits 8-11 the codeword's length (a sub-table's index bits), bits
/// 12-15 flags, and bits 16-31 the value: a literal byte, a length or distance base (the
/// extra bits are added to it), a code length, or a sub-table's start.
const TOTAL_MASK: u32 = 0xff;
const LITERAL: u32 = 1 << 12;
const END: u32 = 1 << 13;
const SUB: u32 = 1 << 14;
const BAD: u32 = 1 << 15;

const LEN_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LEN_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];

/// The order of the code length code lengths in a dynamic block's header.
const PRE_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// Why a stream cannot be inflated.
#[derive(Debug)]
pub enum Fail {
    /// The source failed.
    Io(io::Error),
    /// The stream breaks the format (zlib's message for the same fault).
    Invalid(&'static str),
    /// The input ends before the stream does.
    Truncated,
}

/// Where the decoder is between symbols.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    /// Before a block header.
    Start,
    /// Inside a stored block with this many bytes left.
    Stored(usize),
    /// Inside a block of Huffman codes (the tables are built).
    Codes,
    /// After the last block.
    End,
}

/// A resumable deflate decoder (see the module docs).
pub struct Inflater {
    bitbuf: u64,
    /// Valid bits in `bitbuf` (its bits above may hold part of the next input byte).
    bitcount: u32,
    /// Zero bytes put in the bit buffer past the end of the input.
    padded: u32,
    block: Block,
    last: bool,
    /// A match cut by the end of the output: bytes still to copy, and its distance.
    pending: (usize, usize),
    /// The current block's tables (fixed-size, so a masked root index needs no bounds check).
    litlen: Box<[u32; LIT_ENOUGH]>,
    dist: Box<[u32; DIST_ENOUGH]>,
    /// The last (up to) [`WINDOW`] bytes produced before the current call, a ring (empty
    /// until the first call) whose next byte goes to `head`; `kept` bytes of it are output.
    history: Vec<u8>,
    head: usize,
    kept: usize,
    /// Input carried between reads of the source, from `carry_at`.
    carry: Vec<u8>,
    carry_at: usize,
    /// The source has ended (all of it is in `carry`).
    eof: bool,
    /// The fast loop runs its BMI2 build: the processor has BMI2 (tests may turn it off, to
    /// run the plain build).
    // Read only where the BMI2 build exists (x86_64).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    bmi2: bool,
}

/// The bit reader over one piece of input.
#[derive(Clone, Copy)]
struct Bits<'a> {
    input: &'a [u8],
    pos: usize,
    buf: u64,
    count: u32,
    padded: u32,
    /// `input` is all the input there is: pad with zeros past its end.
    last: bool,
}

impl Bits<'_> {
    /// Whether a symbol or header may be decoded: [`MARGIN`] bytes at hand, or the end.
    #[inline(always)]
    fn ready(&self) -> bool {
        self.last || self.input.len() - self.pos >= MARGIN
    }

    /// Fills the bit buffer to at least 56 bits.
    #[inline(always)]
    fn refill(&mut self) -> Result<(), Fail> {
        if self.input.len() - self.pos >= 8 {
            self.refill_fast();
            Ok(())
        } else {
            self.refill_slow()
        }
    }

    /// [`Bits::refill`] where at least eight input bytes are left.
    #[inline(always)]
    fn refill_fast(&mut self) {
        let word: [u8; 8] = self.input[self.pos..self.pos + 8]
            .try_into()
            .unwrap_or([0; 8]);
        self.buf |= u64::from_le_bytes(word) << self.count;
        self.pos += ((63 - self.count) >> 3) as usize;
        self.count |= 56;
    }

    /// [`Bits::refill`] within eight bytes of the end: byte by byte, then zeros; a reader
    /// that already consumed padding has read past the stream's end.
    #[cold]
    fn refill_slow(&mut self) -> Result<(), Fail> {
        self.check()?;
        while self.count <= 56 {
            let byte = match self.input.get(self.pos) {
                Some(&b) => {
                    self.pos += 1;
                    b
                }
                None => {
                    self.padded += 1;
                    0
                }
            };
            self.buf |= u64::from(byte) << self.count;
            self.count += 8;
        }
        Ok(())
    }

    /// Fails if bits of padding were consumed.
    fn check(&self) -> Result<(), Fail> {
        if self.padded * 8 > self.count {
            return Err(Fail::Truncated);
        }
        Ok(())
    }

    #[inline(always)]
    fn consume(&mut self, n: u32) {
        self.buf >>= n;
        self.count -= n;
    }

    /// The next `n` (at most 16) bits, consumed; the caller has refilled.
    #[inline(always)]
    fn take(&mut self, n: u32) -> u32 {
        let v = (self.buf & ((1u64 << n) - 1)) as u32;
        self.consume(n);
        v
    }

    /// The entry of the next code in `table` (root index bits `root`), not consumed; the
    /// bit buffer holds at least 15 bits.
    #[inline(always)]
    fn lookup(&self, table: &[u32], root: u32) -> u32 {
        let e = table[(self.buf & ((1u64 << root) - 1)) as usize];
        if e & SUB == 0 {
            return e;
        }
        let bits = (e >> 8) & 0xf;
        let i = (e >> 16) as usize + ((self.buf >> root) & ((1u64 << bits) - 1)) as usize;
        table.get(i).copied().unwrap_or(BAD)
    }

    /// Consumes the code of entry `e` (looked up in the bit buffer as it is) and its extra
    /// bits, and returns its value: the entry's plus the extra bits.
    #[inline(always)]
    fn value(&mut self, e: u32) -> u32 {
        let saved = self.buf;
        let total = e & TOTAL_MASK;
        self.consume(total);
        let extra = (saved & ((1u64 << total) - 1)) >> ((e >> 8) & 0xf);
        (e >> 16) + extra as u32
    }
}

impl Default for Inflater {
    fn default() -> Self {
        Inflater::new()
    }
}

impl Inflater {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Inflater {
            bitbuf: 0,
            bitcount: 0,
            padded: 0,
            block: Block::Start,
            last: false,
            pending: (0, 0),
            litlen: Box::new([BAD; LIT_ENOUGH]),
            dist: Box::new([BAD; DIST_ENOUGH]),
            history: Vec::new(),
            head: 0,
            kept: 0,
            carry: Vec::new(),
            carry_at: 0,
            eof: false,
            bmi2: has_bmi2(),
        }
    }

    /// Whether the stream's last block has ended.
    pub fn ended(&self) -> bool {
        self.block == Block::End && self.pending.0 == 0
    }

    /// Inflates from `src` into `out` until `out` is full or the stream ends (what follows
    /// the stream in `src` may be consumed, never decoded). Returns the bytes written; fewer
    /// than `out.len()` only at the stream's end.
    pub fn inflate<R: BufRead + ?Sized>(
        &mut self,
        src: &mut R,
        out: &mut [u8],
    ) -> Result<usize, Fail> {
        let mut w = 0;
        while w < out.len() && !self.ended() {
            if self.carry_at == self.carry.len() {
                let chunk = src.fill_buf().map_err(Fail::Io)?;
                if chunk.len() >= MARGIN {
                    let used = self.run(chunk, false, out, &mut w)?;
                    src.consume(used);
                    continue;
                }
            }
            if self.carry.len() - self.carry_at < MARGIN && !self.eof {
                self.carry.drain(..self.carry_at);
                self.carry_at = 0;
                while self.carry.len() < CARRY {
                    let chunk = src.fill_buf().map_err(Fail::Io)?;
                    if chunk.is_empty() {
                        self.eof = true;
                        break;
                    }
                    let k = chunk.len().min(CARRY - self.carry.len());
                    self.carry.extend_from_slice(&chunk[..k]);
                    src.consume(k);
                }
            }
            let carry = std::mem::take(&mut self.carry);
            let ran = self.run(&carry[self.carry_at..], self.eof, out, &mut w);
            self.carry = carry;
            self.carry_at += ran?;
        }
        self.remember(&out[..w]);
        Ok(w)
    }

    /// Keeps the last [`WINDOW`] bytes of all output so far, at a cost in proportion to
    /// `out`'s length (at most a window).
    fn remember(&mut self, out: &[u8]) {
        let out = &out[out.len().saturating_sub(WINDOW)..];
        if out.is_empty() {
            return;
        }
        // The ring grows as output arrives until it holds a window (small members never
        // allocate a whole one); while it grows, its head is its end.
        if self.history.len() + out.len() <= WINDOW {
            self.history.extend_from_slice(out);
            self.head = self.history.len() % WINDOW;
            self.kept = self.history.len();
            return;
        }
        self.history.resize(WINDOW, 0);
        let first = out.len().min(WINDOW - self.head);
        self.history[self.head..self.head + first].copy_from_slice(&out[..first]);
        self.history[..out.len() - first].copy_from_slice(&out[first..]);
        self.head = (self.head + out.len()) % WINDOW;
        self.kept = (self.kept + out.len()).min(WINDOW);
    }

    /// Decodes from `input` (all there is if `last`) into `out` from `*w`, until `out` is
    /// full, the stream ends, or the input runs short; returns the input bytes used.
    fn run(
        &mut self,
        input: &[u8],
        last: bool,
        out: &mut [u8],
        w: &mut usize,
    ) -> Result<usize, Fail> {
        let mut bits = Bits {
            input,
            pos: 0,
            buf: self.bitbuf,
            count: self.bitcount,
            padded: self.padded,
            last,
        };
        let result = self.blocks(&mut bits, out, w);
        self.bitbuf = bits.buf;
        self.bitcount = bits.count;
        self.padded = bits.padded;
        // A fault found in the zeros past the end is the input's end, not a bad code.
        bits.check()?;
        result?;
        Ok(bits.pos)
    }

    fn blocks(&mut self, bits: &mut Bits<'_>, out: &mut [u8], w: &mut usize) -> Result<(), Fail> {
        loop {
            if self.pending.0 > 0 {
                let (len, dist) = self.pending;
                self.pending = (0, 0);
                self.copy_slow(out, w, dist, len);
            }
            if *w == out.len() {
                return Ok(());
            }
            match self.block {
                Block::End => return Ok(()),
                Block::Start => {
                    if self.last {
                        self.block = Block::End;
                        continue;
                    }
                    if !bits.ready() {
                        return Ok(());
                    }
                    bits.refill()?;
                    let header = bits.take(3);
                    self.last = header & 1 == 1;
                    match header >> 1 {
                        0 => self.stored_header(bits)?,
                        1 => self.fixed_tables()?,
                        2 => self.dynamic_tables(bits)?,
                        _ => return Err(Fail::Invalid("invalid block type")),
                    }
                }
                Block::Stored(left) => {
                    let left = self.stored(bits, out, w, left)?;
                    self.block = if left == 0 {
                        Block::Start
                    } else {
                        Block::Stored(left)
                    };
                    if left > 0 && *w < out.len() {
                        return Ok(()); // the input ran out
                    }
                }
                Block::Codes => {
                    if !self.codes(bits, out, w)? {
                        return Ok(());
                    }
                }
            }
        }
    }

    /// A stored block's LEN and NLEN, after skipping to a byte boundary.
    fn stored_header(&mut self, bits: &mut Bits<'_>) -> Result<(), Fail> {
        bits.consume(bits.count % 8);
        bits.refill()?;
        let len = bits.take(16);
        let nlen = bits.take(16);
        if len != !nlen & 0xffff {
            return Err(Fail::Invalid("invalid stored block lengths"));
        }
        self.block = Block::Stored(len as usize);
        Ok(())
    }

    /// Copies up to `left` bytes of a stored block: first the whole bytes in the bit buffer,
    /// then straight from the input. Returns the bytes still left in the block.
    fn stored(
        &mut self,
        bits: &mut Bits<'_>,
        out: &mut [u8],
        w: &mut usize,
        mut left: usize,
    ) -> Result<usize, Fail> {
        while left > 0 && *w < out.len() && bits.count >= 8 {
            out[*w] = bits.take(8) as u8;
            *w += 1;
            left -= 1;
        }
        bits.check()?;
        if left == 0 || *w == out.len() {
            return Ok(left);
        }
        // The bit buffer is empty; bits above its count belong to the byte at `pos`.
        bits.buf = 0;
        let n = left.min(out.len() - *w).min(bits.input.len() - bits.pos);
        out[*w..*w + n].copy_from_slice(&bits.input[bits.pos..bits.pos + n]);
        *w += n;
        bits.pos += n;
        left -= n;
        if left > 0 && *w < out.len() && bits.last {
            return Err(Fail::Truncated);
        }
        Ok(left)
    }

    /// The fixed code's tables, built once per process and copied (cheaper than building them
    /// for every block: archives of small members are mostly fixed blocks).
    fn fixed_tables(&mut self) -> Result<(), Fail> {
        type Fixed = (Box<[u32; LIT_ENOUGH]>, Box<[u32; DIST_ENOUGH]>);
        static FIXED: std::sync::OnceLock<Option<Fixed>> = std::sync::OnceLock::new();
        let fixed = FIXED.get_or_init(|| {
            let mut lens = [0u8; 320];
            lens[..144].fill(8);
            lens[144..256].fill(9);
            lens[256..280].fill(7);
            lens[280..288].fill(8);
            lens[288..].fill(5);
            let mut built = Inflater::new();
            built.tables(&lens[..288], &lens[288..]).ok()?;
            Some((built.litlen, built.dist))
        });
        let (litlen, dist) = fixed.as_ref().ok_or(Fail::Invalid("invalid fixed code"))?;
        self.litlen.copy_from_slice(&litlen[..]);
        self.dist.copy_from_slice(&dist[..]);
        self.block = Block::Codes;
        Ok(())
    }

    /// Reads a dynamic block's code lengths and builds its tables; the caller made sure the
    /// whole header is at hand ([`Bits::ready`]).
    fn dynamic_tables(&mut self, bits: &mut Bits<'_>) -> Result<(), Fail> {
        bits.refill()?;
        let nlen = bits.take(5) as usize + 257;
        let ndist = bits.take(5) as usize + 1;
        let ncode = bits.take(4) as usize + 4;
        if nlen > 286 || ndist > 30 {
            return Err(Fail::Invalid("too many length or distance symbols"));
        }
        let mut pre_lens = [0u8; 19];
        for &sym in &PRE_ORDER[..ncode] {
            bits.refill()?;
            pre_lens[sym] = bits.take(3) as u8;
        }
        let mut pre = [BAD; 1 << PRE_BITS];
        build(&mut pre, &pre_lens, PRE_BITS, false, |s| {
            ((s as u32) << 16, 0)
        })
        .map_err(|_| Fail::Invalid("invalid code lengths set"))?;
        let mut lens = [0u8; 316];
        let n = nlen + ndist;
        let mut i = 0;
        while i < n {
            bits.refill()?;
            let e = bits.lookup(&pre, PRE_BITS);
            if e & BAD != 0 {
                return Err(Fail::Invalid("invalid code lengths set"));
            }
            let (value, repeat) = match bits.value(e) {
                len @ 0..=15 => (len as u8, 1),
                16 => {
                    let Some(&prev) = i.checked_sub(1).and_then(|p| lens.get(p)) else {
                        return Err(Fail::Invalid("invalid bit length repeat"));
                    };
                    (prev, 3 + bits.take(2) as usize)
                }
                17 => (0, 3 + bits.take(3) as usize),
                _ => (0, 11 + bits.take(7) as usize),
            };
            if i + repeat > n {
                return Err(Fail::Invalid("invalid bit length repeat"));
            }
            lens[i..i + repeat].fill(value);
            i += repeat;
        }
        if lens[256] == 0 {
            return Err(Fail::Invalid("invalid code -- missing end-of-block"));
        }
        self.tables(&lens[..nlen], &lens[nlen..n])
    }

    fn tables(&mut self, lit_lens: &[u8], dist_lens: &[u8]) -> Result<(), Fail> {
        build(
            &mut self.litlen[..],
            lit_lens,
            LIT_BITS,
            true,
            |s| match s {
                0..=255 => (LITERAL | (s as u32) << 16, 0),
                256 => (END, 0),
                257..=285 => (
                    u32::from(LEN_BASE[s - 257]) << 16,
                    LEN_EXTRA[s - 257].into(),
                ),
                _ => (BAD, 0),
            },
        )
        .map_err(|_| Fail::Invalid("invalid literal/lengths set"))?;
        build(&mut self.dist[..], dist_lens, DIST_BITS, true, |s| {
            match (DIST_BASE.get(s), DIST_EXTRA.get(s)) {
                (Some(&b), Some(&x)) => (u32::from(b) << 16, x.into()),
                _ => (BAD, 0),
            }
        })
        .map_err(|_| Fail::Invalid("invalid distances set"))?;
        self.block = Block::Codes;
        Ok(())
    }

    /// Decodes a block's symbols; returns true at its end-of-block code, false when the output
    /// is full or the input runs short. Most are decoded by the fast loop, which needs neither
    /// check per symbol; the last few of a call by the careful one.
    fn codes(&mut self, bits: &mut Bits<'_>, out: &mut [u8], w: &mut usize) -> Result<bool, Fail> {
        let t = Tables {
            litlen: &self.litlen,
            dists: &self.dist,
            history: (&self.history, self.head),
            kept: self.kept,
        };
        let mut local = *bits;
        #[cfg(target_arch = "x86_64")]
        let fast = if self.bmi2 {
            // SAFETY: `bmi2` is set only where the processor has BMI2 (`has_bmi2`), the only
            // requirement of calling a function built with it.
            unsafe { symbols_fast_bmi2(&t, &mut local, out, w) }
        } else {
            symbols_fast(&t, &mut local, out, w)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let fast = symbols_fast(&t, &mut local, out, w);
        *bits = local;
        let end = fast? || symbols_careful(&t, bits, out, w, &mut self.pending)?;
        if end {
            self.block = Block::Start;
        }
        Ok(end)
    }

    /// Copies a match byte by byte, from the history where it reaches before `out`, and
    /// keeps what does not fit as pending.
    fn copy_slow(&mut self, out: &mut [u8], w: &mut usize, dist: usize, len: usize) {
        copy_slow_in(
            (&self.history, self.head),
            &mut self.pending,
            out,
            w,
            dist,
            len,
        );
    }
}

/// What the symbol loops read of the inflater.
struct Tables<'t> {
    litlen: &'t [u32; LIT_ENOUGH],
    dists: &'t [u32; DIST_ENOUGH],
    /// The history ring and its head.
    history: (&'t [u8], usize),
    /// Bytes of output before this call that a match may reach.
    kept: usize,
}

/// The output room the fast loop keeps: a longest match, its copy's overshoot, and a literal.
const FAST_ROOM: usize = 258 + OVERSHOOT + 2;

/// Decodes literals and matches into `out` from `*w` until the end-of-block code (true), or
/// until fewer than [`MARGIN`] input bytes or [`FAST_ROOM`] output bytes are left (false): so
/// no symbol needs a check of either, and the bit buffer is refilled without branches.
#[inline(always)]
fn symbols_fast(
    t: &Tables<'_>,
    bits: &mut Bits<'_>,
    out: &mut [u8],
    w: &mut usize,
) -> Result<bool, Fail> {
    let (Some(in_limit), Some(out_limit)) = (
        bits.input.len().checked_sub(MARGIN),
        out.len().checked_sub(FAST_ROOM),
    ) else {
        return Ok(false);
    };
    let mut o = *w;
    if bits.pos > in_limit || o > out_limit {
        return Ok(false);
    }
    // Each turn starts with at least 15 bits in the buffer, so the next code's entry is
    // looked up while the refill is under way.
    bits.refill_fast();
    let result = loop {
        if bits.pos > in_limit || o > out_limit {
            break Ok(false);
        }
        let first = t.litlen[(bits.buf & ((1 << LIT_BITS) - 1)) as usize];
        bits.refill_fast();
        if first & LITERAL != 0 {
            bits.consume(first & TOTAL_MASK);
            out[o] = (first >> 16) as u8;
            o += 1;
            // A second literal needs at most 15 of the 41 bits left.
            let next = t.litlen[(bits.buf & ((1 << LIT_BITS) - 1)) as usize];
            if next & LITERAL != 0 {
                bits.consume(next & TOTAL_MASK);
                out[o] = (next >> 16) as u8;
                o += 1;
            }
            continue;
        }
        let e = if first & SUB != 0 {
            bits.lookup(t.litlen, LIT_BITS)
        } else {
            first
        };
        if e & LITERAL != 0 {
            bits.consume(e & TOTAL_MASK);
            out[o] = (e >> 16) as u8;
            o += 1;
            continue;
        }
        match matched(t, bits, e, o) {
            Ok(Some((len, dist))) => {
                // A match takes up to 48 bits: back to at least 15 for the next turn.
                bits.refill_fast();
                // The room kept holds any match: none is cut.
                let mut cut = (0, 0);
                copy(t, out, &mut o, dist, len, &mut cut);
                debug_assert_eq!(cut.0, 0);
            }
            Ok(None) => break Ok(true),
            Err(f) => break Err(f),
        }
    };
    *w = o;
    result
}

/// Whether the processor has BMI2, for [`symbols_fast_bmi2`].
fn has_bmi2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("bmi2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// [`symbols_fast`] built for BMI2, whose shifts take their count from any register, not only
/// `cl` (zlib-rs and libdeflate do the same).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn symbols_fast_bmi2(
    t: &Tables<'_>,
    bits: &mut Bits<'_>,
    out: &mut [u8],
    w: &mut usize,
) -> Result<bool, Fail> {
    symbols_fast(t, bits, out, w)
}

/// [`symbols_fast`] near the ends of the input or the output: until the end-of-block code
/// (true), or the output is full or the input runs short (false).
fn symbols_careful(
    t: &Tables<'_>,
    bits: &mut Bits<'_>,
    out: &mut [u8],
    w: &mut usize,
    pending: &mut (usize, usize),
) -> Result<bool, Fail> {
    loop {
        if *w == out.len() || !bits.ready() {
            return Ok(false);
        }
        if bits.count < 48 {
            bits.refill()?;
        }
        let e = bits.lookup(t.litlen, LIT_BITS);
        if e & LITERAL != 0 {
            bits.consume(e & TOTAL_MASK);
            out[*w] = (e >> 16) as u8;
            *w += 1;
            continue;
        }
        match matched(t, bits, e, *w)? {
            Some((len, dist)) => copy(t, out, w, dist, len, pending),
            None => return Ok(true),
        }
    }
}

/// The rest of a symbol that is not a literal (its entry `e`, not yet consumed): `None` for
/// the end-of-block code, else the match's length and distance, checked to reach no further
/// back than the output so far (`o` bytes into this call, and the history before).
#[inline(always)]
fn matched(
    t: &Tables<'_>,
    bits: &mut Bits<'_>,
    e: u32,
    o: usize,
) -> Result<Option<(usize, usize)>, Fail> {
    if e & (END | BAD) != 0 {
        if e & BAD != 0 {
            return Err(Fail::Invalid("invalid literal/length code"));
        }
        bits.consume(e & TOTAL_MASK);
        return Ok(None);
    }
    let len = bits.value(e) as usize;
    let d = bits.lookup(t.dists, DIST_BITS);
    if d & BAD != 0 {
        return Err(Fail::Invalid("invalid distance code"));
    }
    let dist = bits.value(d) as usize;
    if dist > o + t.kept {
        return Err(Fail::Invalid("invalid distance too far back"));
    }
    Ok(Some((len, dist)))
}

/// Copies a checked match to `out[*o..]`: a word at a time when it lies within `out` with
/// room to spare, else byte by byte (from the history where it reaches before `out`), what
/// does not fit kept as pending.
#[inline(always)]
fn copy(
    t: &Tables<'_>,
    out: &mut [u8],
    o: &mut usize,
    dist: usize,
    len: usize,
    pending: &mut (usize, usize),
) {
    if dist <= *o && out.len() - *o >= len + OVERSHOOT {
        copy_match(out, *o, dist, len);
        *o += len;
    } else {
        copy_slow_in(t.history, pending, out, o, dist, len);
    }
}

/// [`Inflater::copy_slow`] on the inflater's parts (so the tables can stay borrowed): the
/// history ring and its head.
fn copy_slow_in(
    (history, head): (&[u8], usize),
    pending: &mut (usize, usize),
    out: &mut [u8],
    w: &mut usize,
    dist: usize,
    len: usize,
) {
    let take = len.min(out.len() - *w);
    for _ in 0..take {
        out[*w] = if dist > *w {
            history[(head + WINDOW - (dist - *w)) % WINDOW]
        } else {
            out[*w - dist]
        };
        *w += 1;
    }
    if take < len {
        *pending = (len - take, dist);
    }
}

/// Copies the match of `len` bytes at distance `dist` (at most `w`) to `out[w..]`, a word at
/// a time: it may write up to [`OVERSHOOT`] bytes past the match, which the caller has room
/// for and which later output overwrites. The first 16 or 32 bytes (most matches are
/// shorter) are copied without a loop.
#[inline(always)]
fn copy_match(out: &mut [u8], w: usize, dist: usize, len: usize) {
    let s = w - dist;
    if dist >= 16 {
        chunk::<16>(out, s, w);
        chunk::<16>(out, s + 16, w + 16);
        let mut i = 32;
        while i < len {
            chunk::<16>(out, s + i, w + i);
            i += 16;
        }
    } else if dist >= 8 {
        chunk::<8>(out, s, w);
        chunk::<8>(out, s + 8, w + 8);
        let mut i = 16;
        while i < len {
            chunk::<8>(out, s + i, w + i);
            i += 8;
        }
    } else if dist == 1 {
        let v = [out[s]; 16];
        let mut i = 0;
        while i < len {
            out[w + i..w + i + 16].copy_from_slice(&v);
            i += 16;
        }
    } else {
        // Bytes repeat every `dist`, so also every multiple of it: the first multiple of 8
        // or more lets the copy go a word at a time once that far in.
        let step = dist * 8usize.div_ceil(dist);
        let head = (step - dist).min(len);
        for i in 0..head {
            out[w + i] = out[s + i];
        }
        let mut i = head;
        while i < len {
            chunk::<8>(out, w + i - step, w + i);
            i += 8;
        }
    }
}

/// The most [`copy_match`] writes past a match's end.
const OVERSHOOT: usize = 32;

/// Copies `N` bytes of `out` from `from` to `to` (which may overlap `from`'s bytes only if
/// they are after them: a load, then a store).
#[inline(always)]
fn chunk<const N: usize>(out: &mut [u8], from: usize, to: usize) {
    let v: [u8; N] = out[from..from + N].try_into().unwrap_or([0; N]);
    out[to..to + N].copy_from_slice(&v);
}

/// Builds the decoding table of the canonical code with code lengths `lens` (symbol `s`'s
/// value and flags, and its extra bits, from `entry(s)`) in `table`: `2^root` root entries,
/// then sub-tables for longer codes, as many as `table` holds. Fails, as zlib does, on an over-subscribed code and on
/// an incomplete one (unless `incomplete_ok` and it is a single code of one bit, or no code
/// at all); unused entries of an incomplete code decode as [`BAD`].
fn build(
    table: &mut [u32],
    lens: &[u8],
    root: u32,
    incomplete_ok: bool,
    entry: impl Fn(usize) -> (u32, u32),
) -> Result<(), ()> {
    let mut count = [0u16; 16];
    for &l in lens {
        count[usize::from(l)] += 1;
    }
    count[0] = 0;
    let mut used = 1 << root;
    let Some(max) = (1..16).rev().find(|&l| count[l] > 0) else {
        table[..used].fill(BAD);
        return Ok(()); // no codes: every lookup is BAD
    };
    let mut left: i32 = 1;
    for &c in &count[1..] {
        left = (left << 1) - i32::from(c);
        if left < 0 {
            return Err(()); // over-subscribed
        }
    }
    if left > 0 && (!incomplete_ok || max != 1) {
        return Err(()); // incomplete
    }
    // A complete code fills every entry below; only the one incomplete code allowed (a single
    // one-bit code) leaves entries, which must decode as BAD.
    if left > 0 {
        table[..used].fill(BAD);
    }
    let mut offsets = [0usize; 16];
    for l in 1..15 {
        offsets[l + 1] = offsets[l] + usize::from(count[l]);
    }
    let total = offsets[15] + usize::from(count[15]);
    let mut sorted = [0u16; 320];
    for (sym, &l) in lens.iter().enumerate() {
        if l != 0 {
            sorted[offsets[usize::from(l)]] = sym as u16;
            offsets[usize::from(l)] += 1;
        }
    }
    let root_size = 1usize << root;
    let mut remaining = count;
    let (mut code, mut prev_len) = (0u32, 0u32);
    let (mut sub_prefix, mut sub_start, mut sub_bits) = (usize::MAX, 0usize, 0u32);
    for &sym in &sorted[..total] {
        let len = u32::from(lens[usize::from(sym)]);
        code <<= len - prev_len;
        prev_len = len;
        let rev = (code.reverse_bits() >> (32 - len)) as usize;
        let (value, extra) = entry(usize::from(sym));
        let e = if value & BAD != 0 {
            BAD
        } else {
            value | (len << 8) | (len + extra)
        };
        if len <= root {
            let mut i = rev;
            while i < root_size {
                table[i] = e;
                i += 1 << len;
            }
        } else {
            let prefix = rev & (root_size - 1);
            if prefix != sub_prefix {
                // A new sub-table, as wide as the codes starting with this prefix need.
                let mut bits = len - root;
                let mut room = 1i32 << bits;
                while bits + root < max as u32 {
                    room -= i32::from(remaining[(bits + root) as usize]);
                    if room <= 0 {
                        break;
                    }
                    bits += 1;
                    room <<= 1;
                }
                sub_start = used;
                sub_bits = bits;
                used += 1 << bits;
                if used > table.len() {
                    return Err(());
                }
                table[prefix] = SUB | (bits << 8) | ((sub_start as u32) << 16);
                sub_prefix = prefix;
            }
            let mut i = rev >> root;
            while i < 1 << sub_bits {
                table[sub_start + i] = e;
                i += 1 << (len - root);
            }
        }
        remaining[len as usize] -= 1;
        code += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Write};

    fn deflate(data: &[u8], level: u32) -> Vec<u8> {
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(level));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// zlib's verdict on a raw deflate stream: its bytes if the stream ends within `z`.
    fn zlib(z: &[u8], limit: usize) -> Option<Vec<u8>> {
        let mut d = flate2::Decompress::new(false);
        let mut out = Vec::with_capacity(limit);
        match d.decompress_vec(z, &mut out, flate2::FlushDecompress::Finish) {
            Ok(flate2::Status::StreamEnd) => Some(out),
            _ => None,
        }
    }

    /// Inflates `z` read through a buffer of `cap` bytes into pieces of `piece` bytes, up to
    /// `limit` bytes: the bytes if the stream ended, else the failure.
    fn ours(z: &[u8], cap: usize, piece: usize, limit: usize) -> Result<Vec<u8>, Fail> {
        ours_with(z, cap, piece, limit, has_bmi2())
    }

    /// [`ours`], with the fast loop's BMI2 build if `bmi2` (and the processor has it).
    fn ours_with(
        z: &[u8],
        cap: usize,
        piece: usize,
        limit: usize,
        bmi2: bool,
    ) -> Result<Vec<u8>, Fail> {
        let mut src = BufReader::with_capacity(cap, z);
        let mut inf = Inflater::new();
        inf.bmi2 &= bmi2;
        let mut all = Vec::new();
        let mut buf = vec![0u8; piece];
        while !inf.ended() && all.len() < limit {
            let n = inf.inflate(&mut src, &mut buf)?;
            all.extend_from_slice(&buf[..n]);
        }
        if !inf.ended() {
            return Err(Fail::Invalid("longer than the limit"));
        }
        Ok(all)
    }

    /// Data like the arrays `.npz` files hold: runs of equal i64s (matches at distance 8),
    /// small integers, text, zeros, bytes that do not compress, and short periods.
    fn samples() -> Vec<Vec<u8>> {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut rand = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let runs: Vec<u8> = (0..40_000u64)
            .flat_map(|i| (i / 16 % 1000).to_le_bytes())
            .collect();
        let small: Vec<u8> = (0..30_000)
            .flat_map(|_| (rand() % 1000).to_le_bytes())
            .collect();
        let text: Vec<u8> = (0..20_000)
            .flat_map(|i| format!("alpha_{} beta_{} ", i % 97, rand() % 50).into_bytes())
            .collect();
        let noise: Vec<u8> = (0..100_000).map(|_| rand() as u8).collect();
        let periods: Vec<u8> = (1..40usize)
            .flat_map(|p| (0..3000).map(move |i| (i % p * 7) as u8))
            .collect();
        vec![
            runs,
            small,
            text,
            noise,
            periods,
            vec![0; 300_000],
            vec![],
            b"a".to_vec(),
        ]
    }

    #[test]
    fn inflates_what_zlib_writes_at_every_level_in_any_pieces() {
        for (k, data) in samples().into_iter().enumerate() {
            for level in [0, 1, 6, 9] {
                let z = deflate(&data, level);
                // The fast loop's plain build too, which processors without BMI2 run.
                for (cap, piece, bmi2) in [
                    (1 << 20, 1 << 20, true),
                    (1 << 20, 1 << 20, false),
                    (1, 1, true),
                    (100, 7, true),
                    (1500, 300, true),
                    (8192, 65_536, false),
                    (3, 1 << 20, true),
                ] {
                    let way = format!("sample {k}, level {level}, cap {cap}, piece {piece}");
                    let got = ours_with(&z, cap, piece, data.len() + 1, bmi2)
                        .unwrap_or_else(|e| panic!("{way}, bmi2 {bmi2}: {e:?}"));
                    let first = got.iter().zip(&data).position(|(a, b)| a != b);
                    assert!(
                        got == data,
                        "{way}, bmi2 {bmi2}: {} bytes of {}, first difference at {first:?}",
                        got.len(),
                        data.len()
                    );
                }
            }
        }
    }

    #[test]
    fn stops_at_the_streams_end_whatever_follows() {
        let data = samples().swap_remove(2);
        let mut z = deflate(&data, 6);
        z.extend_from_slice(b"TRAILER");
        for cap in [1, 64, 1 << 20] {
            let mut src = BufReader::with_capacity(cap, &z[..]);
            let mut out = vec![0u8; data.len() + 10];
            let mut inf = Inflater::new();
            let mut n = 0;
            while !inf.ended() && n < out.len() {
                n += inf.inflate(&mut src, &mut out[n..]).unwrap();
            }
            assert!(
                inf.ended() && n == data.len() && out[..n] == data[..],
                "cap {cap}"
            );
            assert_eq!(inf.inflate(&mut src, &mut out).unwrap(), 0, "cap {cap}");
        }
    }

    #[test]
    fn every_cut_stream_is_truncated() {
        for data in samples() {
            let z = deflate(&data[..data.len().min(3000)], 6);
            for cut in 0..z.len() {
                for cap in [1, 1 << 20] {
                    match ours(&z[..cut], cap, 4096, 1 << 20) {
                        Err(Fail::Truncated) => {}
                        other => {
                            panic!("cut at {cut} of {}: {:?}", z.len(), other.map(|v| v.len()))
                        }
                    }
                }
            }
        }
    }

    /// Streams with bits flipped, bytes replaced and random bytes: whatever zlib inflates,
    /// this inflates to the same bytes; whatever zlib rejects, this rejects; nothing panics.
    #[test]
    fn damaged_streams_get_zlibs_verdict() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut rand = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut streams: Vec<Vec<u8>> = Vec::new();
        for data in samples() {
            for level in [1, 6] {
                streams.push(deflate(&data[..data.len().min(2000)], level));
            }
        }
        // Both verdicts must come up often, or the rounds test little.
        let (mut inflated, mut rejected) = (0, 0);
        for round in 0..6000 {
            let mut z = streams[round % streams.len()].clone();
            if z.is_empty() || round % 10 == 9 {
                z = (0..(rand() % 600) as usize).map(|_| rand() as u8).collect();
            } else {
                for _ in 0..1 + rand() % 3 {
                    let at = (rand() as usize) % z.len();
                    if rand() % 2 == 0 {
                        z[at] ^= 1 << (rand() % 8);
                    } else {
                        z[at] = rand() as u8;
                    }
                }
            }
            let limit = 1 << 20;
            let want = zlib(&z, limit);
            if want.is_some() {
                inflated += 1;
            } else {
                rejected += 1;
            }
            for (cap, piece) in [(1 << 20, 1 << 20), (7, 333)] {
                match (&want, ours(&z, cap, piece, limit)) {
                    (Some(w), Ok(g)) => assert!(*w == g, "round {round}: different bytes"),
                    (None, Err(_)) => {}
                    (w, g) => panic!(
                        "round {round} (cap {cap}): zlib {:?}, ours {:?}",
                        w.as_ref().map(|v| v.len()),
                        g.map(|v| v.len())
                    ),
                }
            }
        }
        assert!(
            inflated > 500 && rejected > 500,
            "{inflated} inflated, {rejected} rejected"
        );
    }
}
