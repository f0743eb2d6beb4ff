//! [`NpzReader::read_all`]: every member at once. With the `parallel` feature, the compressed
//! bytes of deflated members are read in turn (reading is sequential anyway), then inflated
//! and parsed in parallel with rayon, in batches of at most [`BATCH`] compressed bytes so
//! memory stays bounded; without it, members are read one after another.
//!
//! This module builds on the reader, never the other way round.

use super::reader::NpzReader;
use ndarray::{ArrayBase, DataOwned, Dimension};
use ndnpy_engine::base::error::Error;
use ndnpy_engine::element::ReadableElement;
use std::io::{Read, Seek};
#[cfg(feature = "parallel")]
use {
    super::member, ndnpy_engine::archive::member::MemberReader, ndnpy_engine::archive::DEFLATED,
    rayon::prelude::*, std::io::SeekFrom,
};

impl<R: Read + Seek> NpzReader<R> {
    /// Reads every member as `(key, array)`, in archive order, with the results
    /// [`NpzReader::iter`] gives. With the `parallel` feature, deflated members are
    /// decompressed on all cores (rayon): their compressed bytes are read in turn, up to
    /// 256 MiB at a time, and inflated and parsed in parallel. Without it, members are read
    /// one after another. The results are the same either way.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut npz = ndnpy::NpzReader::open("testdata/npz_compressed.npz")?;
    /// let all = npz.read_all::<ndarray::OwnedRepr<f64>, ndarray::IxDyn>();
    /// assert_eq!(all.len(), npz.len());
    /// assert_eq!(all[0].0, "a");
    /// assert!(all[0].1.is_ok());
    /// # Ok::<(), ndnpy::Error>(())
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn read_all<S, D>(&mut self) -> Vec<(String, Result<ArrayBase<S, D>, Error>)>
    where
        S::Elem: ReadableElement,
        S: DataOwned,
        D: Dimension,
        ArrayBase<S, D>: Send,
    {
        #[cfg(feature = "parallel")]
        {
            self.read_all_parallel()
        }
        #[cfg(not(feature = "parallel"))]
        {
            self.iter().collect()
        }
    }
}

/// The most compressed bytes held for one parallel batch.
#[cfg(feature = "parallel")]
const BATCH: usize = 256 << 20;

/// The error for a member index past the end (not reached: the indices come from the same
/// directory).
#[cfg(feature = "parallel")]
fn missing(index: usize) -> Error {
    Error::from(ndnpy_engine::base::error::MismatchError::MemberIndex { index, len: index })
}

/// One member of a batch: already read (stored, or an error), or compressed bytes to inflate.
#[cfg(feature = "parallel")]
enum Job<T> {
    Done(Result<T, Error>),
    Inflate(usize, Vec<u8>),
}

#[cfg(feature = "parallel")]
impl<R: Read + Seek> NpzReader<R> {
    #[allow(clippy::type_complexity)]
    fn read_all_parallel<S, D>(&mut self) -> Vec<(String, Result<ArrayBase<S, D>, Error>)>
    where
        S::Elem: ReadableElement,
        S: DataOwned,
        D: Dimension,
        ArrayBase<S, D>: Send,
    {
        let n = self.len();
        let mut results: Vec<Result<ArrayBase<S, D>, Error>> = Vec::with_capacity(n);
        let mut jobs = Vec::new();
        let mut held = 0usize;
        for i in 0..n {
            let deflated = self.dir.entry(i).is_some_and(|e| e.method == DEFLATED);
            if deflated {
                match self.compressed_bytes(i) {
                    Ok(bytes) => {
                        // Counted at its declared size now, so the members after it are
                        // checked against it; what it does not inflate is given back below.
                        let size = self.dir.entry(i).map_or(0, |e| e.size);
                        self.inflated = self.inflated.saturating_add(size);
                        held += bytes.len();
                        jobs.push(Job::Inflate(i, bytes));
                    }
                    Err(e) => jobs.push(Job::Done(Err(e))),
                }
            } else {
                jobs.push(Job::Done(self.member(i).and_then(|mut m| m.read())));
            }
            if held >= BATCH || i + 1 == n {
                let (entries, opts) = (&self.dir, &self.options);
                let done: Vec<_> = std::mem::take(&mut jobs)
                    .into_par_iter()
                    .map(|job| match job {
                        Job::Done(r) => (r, 0),
                        Job::Inflate(i, bytes) => match entries.entry(i) {
                            Some(entry) => {
                                let mut m =
                                    MemberReader::new(&bytes[..], entry).with_threads(opts.threads);
                                let r = member::read_npy(&mut m, opts)
                                    .map_err(|e| e.in_member(entry.name));
                                (r, entry.size.saturating_sub(m.produced()))
                            }
                            None => (Err(missing(i)), 0),
                        },
                    })
                    .collect();
                for (r, unread) in done {
                    self.inflated = self.inflated.saturating_sub(unread);
                    results.push(r);
                }
                held = 0;
            }
        }
        self.keys().map(str::to_owned).zip(results).collect()
    }

    /// The compressed bytes of member `index`, after checking that inflating it stays within
    /// [`ReadOptions::max_inflated_len`](crate::ReadOptions::max_inflated_len).
    fn compressed_bytes(&mut self, index: usize) -> Result<Vec<u8>, Error> {
        let entry = self.entry(index)?;
        entry.check()?;
        self.charge_check(index, entry.size)?;
        let NpzReader {
            reader,
            dir,
            scratch,
            ..
        } = self;
        let located = dir.locate(reader, index, scratch);
        let located = located.map_err(|e| match dir.entry(index) {
            Some(entry) => e.in_member(entry.name),
            None => e,
        })?;
        let Some(entry) = dir.entry(index) else {
            return Err(Error::from(
                ndnpy_engine::base::error::MismatchError::MemberIndex {
                    index,
                    len: dir.len(),
                },
            ));
        };
        if let Some(range) = located.in_scratch {
            return Ok(scratch[range].to_vec());
        }
        // The data lies in the archive (checked by locate), so this allocation is real; it
        // can still fail, as an error.
        let len = usize::try_from(entry.compressed_size).unwrap_or(usize::MAX);
        let mut bytes = Vec::new();
        bytes
            .try_reserve_exact(len)
            .map_err(|_| Error::out_of_memory(len, "an archive member"))?;
        bytes.resize(len, 0);
        reader.seek(SeekFrom::Start(located.data_start))?;
        let got = ndnpy_engine::platform::ioutil::read_full(reader, &mut bytes)?;
        if got < bytes.len() {
            let e = ndnpy_engine::base::error::FormatError::MemberTruncated {
                declared: entry.compressed_size,
                found: got as u64,
            };
            return Err(Error::from(e).in_member(entry.name));
        }
        Ok(bytes)
    }
}
