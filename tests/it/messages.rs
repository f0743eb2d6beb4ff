//! The texts of the crate's errors, pinned in one place.
//!
//! Every other test tells an error by its kind, fault and accessors (`kind()`, `fault()`,
//! `byte_counts()`, `member()`, ...), never by its text. What a user reads is checked here:
//! numpy's wording where numpy has one, ndarray-npy's where its users assert it, and the
//! details each message names (keys, shapes, limits, offsets, the option to raise). Each area
//! lists its errors in a `messages()` function beside the scenarios that make them; a wording
//! change is one edit in that list.

use std::fmt::Display;

/// One error's text and what it must read.
pub(crate) struct Message {
    what: String,
    text: String,
    want: Want,
}

// Which of these the areas use depends on the features built.
#[allow(dead_code)]
enum Want {
    /// The whole text.
    Is(String),
    /// Each of these somewhere in it.
    Has(Vec<String>),
    /// Its start.
    Starts(String),
    /// Its end.
    Ends(String),
}

#[allow(dead_code)]
impl Message {
    /// `err`'s text is exactly `want`.
    pub(crate) fn is(what: impl Into<String>, err: impl Display, want: impl Into<String>) -> Self {
        Self::new(what, err, Want::Is(want.into()))
    }

    /// `err`'s text holds each of `parts`.
    pub(crate) fn has(what: impl Into<String>, err: impl Display, parts: &[&str]) -> Self {
        let parts = parts.iter().map(|p| p.to_string()).collect();
        Self::new(what, err, Want::Has(parts))
    }

    /// `err`'s text starts with `start`.
    pub(crate) fn starts(
        what: impl Into<String>,
        err: impl Display,
        start: impl Into<String>,
    ) -> Self {
        Self::new(what, err, Want::Starts(start.into()))
    }

    /// `err`'s text ends with `end`.
    pub(crate) fn ends(what: impl Into<String>, err: impl Display, end: impl Into<String>) -> Self {
        Self::new(what, err, Want::Ends(end.into()))
    }

    fn new(what: impl Into<String>, err: impl Display, want: Want) -> Self {
        Message {
            what: what.into(),
            text: err.to_string(),
            want,
        }
    }

    /// Why the text is not what it must be, if it is not.
    fn wrong(&self) -> Option<String> {
        let (ok, want) = match &self.want {
            Want::Is(w) => (self.text == *w, format!("{w:?}")),
            Want::Has(parts) => (
                parts.iter().all(|p| self.text.contains(p.as_str())),
                format!("text holding each of {parts:?}"),
            ),
            Want::Starts(s) => (self.text.starts_with(s.as_str()), format!("{s:?}...")),
            Want::Ends(e) => (self.text.ends_with(e.as_str()), format!("...{e:?}")),
        };
        (!ok).then(|| format!("{}:\n  got  {:?}\n  want {want}", self.what, self.text))
    }
}

#[test]
fn every_message_reads_as_pinned() {
    let mut all = Vec::new();
    all.extend(crate::malformed::messages());
    #[cfg(feature = "half")]
    all.extend(crate::testdata::messages());
    all.extend(crate::dtypes::messages());
    all.extend(crate::surrogates::messages());
    #[cfg(all(feature = "derive", feature = "mmap", feature = "half"))]
    all.extend(crate::records::messages());
    #[cfg(feature = "npz")]
    all.extend(crate::npz::messages());
    #[cfg(feature = "npz")]
    all.extend(crate::npz_member::messages());
    #[cfg(all(feature = "npz", target_os = "linux"))]
    all.extend(crate::hostile_npz::messages());
    #[cfg(all(feature = "npz", feature = "mmap"))]
    all.extend(crate::write_options::messages());
    #[cfg(feature = "mmap")]
    all.extend(crate::out_of_core::messages());
    #[cfg(not(feature = "object"))]
    all.extend(crate::no_object::messages());
    #[cfg(feature = "object")]
    all.extend(crate::object::messages());
    #[cfg(feature = "safetensors")]
    all.extend(crate::safetensors::messages());
    #[cfg(all(feature = "npz", feature = "derive"))]
    all.extend(crate::read_into::messages());
    #[cfg(all(feature = "mmap", feature = "npz", feature = "derive"))]
    all.extend(crate::region::messages());
    #[cfg(feature = "parquet")]
    all.extend(crate::parquet::messages());
    let wrong: Vec<String> = all.iter().filter_map(Message::wrong).collect();
    assert!(
        wrong.is_empty(),
        "{} of {} messages:\n{}",
        wrong.len(),
        all.len(),
        wrong.join("\n")
    );
}
