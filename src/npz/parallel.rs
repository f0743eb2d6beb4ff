//! [`NpzReader::read_all`] on all cores: the compressed bytes of deflated members are read in
//! turn (reading is sequential anyway), then inflated and parsed in parallel with rayon, in
//! batches of at most [`BATCH`] compressed bytes so memory stays bounded.

use super::archive::DEFLATED;
use super::member::{self, MemberReader};
use super::reader::NpzReader;
use crate::error::Error;
use crate::ReadableElement;
use ndarray::{ArrayBase, DataOwned, Dimension};
use rayon::prelude::*;
use std::io::{Read, Seek};

/// The most compressed bytes held for one parallel batch.
const BATCH: usize = 256 << 20;

/// The error for a member index past the end (not reached: the indices come from the same
/// directory).
fn missing(index: usize) -> Error {
    Error::Mismatch(crate::MismatchError::MemberIndex { index, len: index })
}

/// One member of a batch: already read (stored, or an error), or compressed bytes to inflate.
enum Job<T> {
    Done(Result<T, Error>),
    Inflate(usize, Vec<u8>),
}

#[allow(clippy::type_complexity)]
pub(crate) fn read_all<R, S, D>(
    npz: &mut NpzReader<R>,
) -> Vec<(String, Result<ArrayBase<S, D>, Error>)>
where
    R: Read + Seek,
    S::Elem: ReadableElement,
    S: DataOwned,
    D: Dimension,
    ArrayBase<S, D>: Send,
{
    let n = npz.len();
    let mut results: Vec<Result<ArrayBase<S, D>, Error>> = Vec::with_capacity(n);
    let mut jobs = Vec::new();
    let mut held = 0usize;
    for i in 0..n {
        let deflated = npz.member(i).is_some_and(|m| m.method() == DEFLATED);
        if deflated {
            match npz.compressed_bytes(i) {
                Ok(bytes) => {
                    // Counted at its declared size now, so the members after it are checked
                    // against it; what it does not inflate is given back below.
                    npz.charge(npz.member(i).map_or(0, |m| m.size()));
                    held += bytes.len();
                    jobs.push(Job::Inflate(i, bytes));
                }
                Err(e) => jobs.push(Job::Done(Err(e))),
            }
        } else {
            jobs.push(Job::Done(npz.by_index(i)));
        }
        if held >= BATCH || i + 1 == n {
            let (entries, opts) = npz.parts();
            let done: Vec<_> = std::mem::take(&mut jobs)
                .into_par_iter()
                .map(|job| match job {
                    Job::Done(r) => (r, 0),
                    Job::Inflate(i, bytes) => match entries.entry(i) {
                        Some(entry) => {
                            let mut m = MemberReader::new(&bytes[..], entry);
                            let r = member::read_npy(&mut m, opts);
                            (r, entry.size.saturating_sub(m.produced()))
                        }
                        None => (Err(missing(i)), 0),
                    },
                })
                .collect();
            for (r, unread) in done {
                npz.uncharge(unread);
                results.push(r);
            }
            held = 0;
        }
    }
    npz.keys().map(str::to_owned).zip(results).collect()
}
