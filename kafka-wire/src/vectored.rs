//! Encoding with large byte payloads referenced, not copied: [`Vectored`].
//!
//! A Produce request or a Fetch response is mostly record batches that the program already
//! holds as [`Bytes`]. An ordinary encode copies them into the output; a vectored encode
//! writes everything else (header, length prefixes, the fields around the batches) into one
//! buffer and keeps each `bytes` or `records` value of [`VECTORED_MIN`] bytes or more as a
//! reference to the caller's `Bytes`, to be handed to the socket with the rest in one
//! `write_vectored` ([`Vectored::write_to`], [`Vectored::io_slices`]).
//!
//! How, without a second copy of every generated `write`: the encode is the ordinary one,
//! into the head `Vec<u8>`. For its duration a per-thread record holds the head's address;
//! the writer of `bytes` values (which `records` values go through) compares its buffer's
//! address with it, and only for that buffer, and only for long values, writes the length
//! prefix and records the value and its position instead of copying it. Every other encode
//! pays one comparison per long `bytes` value.

use core::cell::{Cell, RefCell};
use std::io::{self, IoSlice};

use bytes::{BufMut, Bytes};

use crate::error::{EncodeError, EncodeErrorKind};

/// The shortest `bytes` or `records` value a vectored encode references instead of copying:
/// below it, a copy costs less than one more segment for the socket to gather.
pub const VECTORED_MIN: usize = 1024;

/// An encoded message or frame as segments: the bytes written (`head`) with the long
/// `bytes`/`records` values referenced at their positions, in wire order.
///
/// Made by [`KafkaMessage::encode_vectored`](crate::KafkaMessage::encode_vectored) and
/// [`frame::encode_request_vectored`](crate::frame::encode_request_vectored) /
/// [`encode_response_vectored`](crate::frame::encode_response_vectored), which append to it,
/// all or nothing; [`clear`](Self::clear) it to reuse its buffers. The bytes it stands for
/// are exactly what the ordinary encode writes ([`to_vec`](Self::to_vec)).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Vectored {
    /// Every byte but the referenced values.
    head: Vec<u8>,
    /// The referenced values, each with its position in `head`, positions ascending.
    refs: Vec<(usize, Bytes)>,
    /// The referenced values' total length.
    referenced: usize,
}

impl Vectored {
    /// An empty one.
    pub const fn new() -> Self {
        Vectored {
            head: Vec::new(),
            refs: Vec::new(),
            referenced: 0,
        }
    }

    /// Empties it, keeping the head's capacity.
    pub fn clear(&mut self) {
        self.head.clear();
        self.refs.clear();
        self.referenced = 0;
    }

    /// The number of bytes it stands for (written and referenced).
    pub fn len(&self) -> usize {
        self.head.len() + self.referenced
    }

    /// Whether it stands for no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many values are referenced rather than copied.
    pub fn referenced_count(&self) -> usize {
        self.refs.len()
    }

    /// The bytes copied into the head (everything but the referenced values).
    pub fn copied_len(&self) -> usize {
        self.head.len()
    }

    /// The segments in wire order: pieces of the head between the referenced values, and
    /// the values. No segment is empty.
    pub fn segments(&self) -> Segments<'_> {
        Segments {
            v: self,
            at: 0,
            next: 0,
            value_next: false,
        }
    }

    /// The segments as `IoSlice`s, for `Write::write_vectored`.
    pub fn io_slices(&self) -> Vec<IoSlice<'_>> {
        self.segments().map(IoSlice::new).collect()
    }

    /// The bytes it stands for, in one vector (a copy of every segment).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        for s in self.segments() {
            out.extend_from_slice(s);
        }
        out
    }

    /// Writes every segment to `w` with `write_vectored`, until all are written.
    pub fn write_to<W: io::Write + ?Sized>(&self, w: &mut W) -> io::Result<()> {
        let mut slices = self.io_slices();
        let mut rest = &mut slices[..];
        while !rest.is_empty() {
            match w.write_vectored(rest) {
                Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
                Ok(n) => IoSlice::advance_slices(&mut rest, n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Runs `write` on the head with long values diverted into `self.refs`, all or nothing:
    /// on error, and when `write` panics, the head and the references are as they were.
    pub(crate) fn append(
        &mut self,
        write: &mut dyn FnMut(&mut Vec<u8>) -> Result<(), EncodeError>,
    ) -> Result<(), EncodeError> {
        let mut undo = Rollback {
            start: self.head.len(),
            refs_start: self.refs.len(),
            v: self,
        };
        let Vectored { head, refs, .. } = &mut *undo.v;
        let res = {
            // Dropped before `undo`, panicking or not: the references are back in `refs`
            // when `undo` looks at them.
            let _sink = Sink::install(head, refs);
            write(head)
        };
        if res.is_ok() {
            let added = undo.v.referenced_since(undo.refs_start);
            undo.v.referenced += added;
            undo.refs_start = usize::MAX;
        }
        res
    }

    /// The length of the values referenced from the `from`-th reference on.
    fn referenced_since(&self, from: usize) -> usize {
        self.refs
            .get(from..)
            .map_or(0, |r| r.iter().map(|(_, b)| b.len()).sum())
    }

    /// A frame appended by [`append`](Self::append): a size prefix, what `contents`
    /// writes, the prefix filled in with the size written and referenced (see
    /// `frame::put_frame` for the ordinary encode).
    pub(crate) fn append_frame(
        &mut self,
        contents: &mut dyn FnMut(&mut Vec<u8>) -> Result<(), EncodeError>,
    ) -> Result<(), EncodeError> {
        let start = self.head.len();
        let refs_start = self.refs.len();
        self.append(&mut |head| {
            head.put_i32(0);
            contents(head)
        })?;
        let added = self.referenced_since(refs_start);
        let size = self.head.len().saturating_sub(start + 4) + added;
        match i32::try_from(size) {
            Ok(size32) => {
                if let Some(prefix) = self.head.get_mut(start..start + 4) {
                    prefix.copy_from_slice(&size32.to_be_bytes());
                }
                Ok(())
            }
            Err(_) => {
                self.head.truncate(start);
                self.refs.truncate(refs_start);
                self.referenced -= added;
                Err(EncodeError::new(EncodeErrorKind::LengthTooLarge(size)).in_part("size"))
            }
        }
    }
}

/// Puts a [`Vectored`] back as it was before a failed (or panicking) append, unless the
/// append succeeded (`refs_start` is then `usize::MAX`).
struct Rollback<'a> {
    v: &'a mut Vectored,
    start: usize,
    refs_start: usize,
}

impl Drop for Rollback<'_> {
    fn drop(&mut self) {
        if self.refs_start != usize::MAX {
            self.v.head.truncate(self.start);
            self.v.refs.truncate(self.refs_start);
        }
    }
}

/// The iterator of [`Vectored::segments`].
#[derive(Debug, Clone)]
pub struct Segments<'a> {
    v: &'a Vectored,
    /// Where the next head piece starts.
    at: usize,
    /// The next reference.
    next: usize,
    /// Whether the reference `next` comes before any more head bytes.
    value_next: bool,
}

impl<'a> Iterator for Segments<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        loop {
            if self.value_next {
                self.value_next = false;
                let (_, b) = self.v.refs.get(self.next)?;
                self.next += 1;
                if !b.is_empty() {
                    return Some(b);
                }
                continue;
            }
            let end = self
                .v
                .refs
                .get(self.next)
                .map_or(self.v.head.len(), |(at, _)| *at);
            let piece = self.v.head.get(self.at..end)?;
            self.at = end;
            self.value_next = self.next < self.v.refs.len();
            if !piece.is_empty() {
                return Some(piece);
            }
            if !self.value_next {
                return None;
            }
        }
    }
}

std::thread_local! {
    /// The address of the head a vectored encode is writing on this thread, 0 when none:
    /// read by every long `bytes` write, so a `Cell` apart from the rest.
    static TARGET: Cell<usize> = const { Cell::new(0) };
    /// The references being collected, with the head's length and `remaining_mut` when the
    /// encode started (so a position is found from the buffer's `remaining_mut`, which
    /// `BufMut` decreases by exactly the bytes written).
    static SINK: RefCell<SinkState> = const {
        RefCell::new(SinkState { len: 0, remaining: 0, refs: Vec::new() })
    };
}

/// What [`SINK`] holds.
struct SinkState {
    len: usize,
    remaining: usize,
    refs: Vec<(usize, Bytes)>,
}

/// The per-thread record of one vectored encode, restored to what it was when dropped (a
/// vectored encode inside another one's `write` gets its own), with the references collected
/// handed back to the `Vectored` they were taken from, on a panic too.
struct Sink<'a> {
    /// Where the references live outside the encode (taken into [`SINK`] while it runs).
    refs: &'a mut Vec<(usize, Bytes)>,
    prev_target: usize,
    /// What `SINK` held before, `None` when it was unreachable (and `refs` was not taken).
    prev: Option<SinkState>,
}

fn address<B: ?Sized>(buf: &B) -> usize {
    (buf as *const B).cast::<()>() as usize
}

impl<'a> Sink<'a> {
    fn install(head: &Vec<u8>, refs: &'a mut Vec<(usize, Bytes)>) -> Sink<'a> {
        let (len, remaining) = (head.len(), head.remaining_mut());
        // `refs` moves into `SINK` only if `SINK` is reachable (not in a thread-local
        // destructor running after its own), so that it is never dropped on the way.
        let prev = SINK
            .try_with(|s| {
                let state = SinkState {
                    len,
                    remaining,
                    refs: core::mem::take(refs),
                };
                core::mem::replace(&mut *s.borrow_mut(), state)
            })
            .ok();
        // The head becomes the target only if the references have somewhere to go: with
        // the sink unreachable, a long value diverted by `is_target` would be lost by
        // `refer`; untargeted, it is copied into the head as an ordinary encode would.
        let prev_target = if prev.is_some() {
            TARGET.try_with(|t| t.replace(address(head))).unwrap_or(0)
        } else {
            TARGET.try_with(Cell::get).unwrap_or(0)
        };
        Sink {
            refs,
            prev_target,
            prev,
        }
    }
}

impl Drop for Sink<'_> {
    fn drop(&mut self) {
        let _ = TARGET.try_with(|t| t.set(self.prev_target));
        if let Some(prev) = self.prev.take() {
            let refs = &mut *self.refs;
            let _ = SINK.try_with(|s| *refs = core::mem::replace(&mut *s.borrow_mut(), prev).refs);
        }
    }
}

/// Whether `buf` is the head of the vectored encode running on this thread.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(crate) fn is_target<B: ?Sized>(buf: &B) -> bool {
    TARGET.try_with(Cell::get).unwrap_or(0) == address(buf)
}

/// Records `b` as referenced at the head's current position, given by its `remaining_mut`.
#[inline(never)]
pub(crate) fn refer(remaining: usize, b: &Bytes) {
    let _ = SINK.try_with(|s| {
        let mut s = s.borrow_mut();
        let at = s.len + s.remaining.saturating_sub(remaining);
        s.refs.push((at, b.clone()));
    });
}
