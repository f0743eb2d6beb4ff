//! A progress bar on standard error for long work, shown only when standard error is a
//! terminal (never in pipes, logs or tests) and only for work of more than 64 MiB.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Work smaller than this many bytes gets no bar.
const MIN_BYTES: u64 = 64 << 20;

/// The bar of one piece of work (or nothing, when off).
pub struct Progress {
    enabled: bool,
    label: String,
    total: u64,
    itemsize: u64,
    last: Option<Instant>,
    shown: bool,
}

impl Progress {
    /// A bar that shows itself if standard error is a terminal.
    pub fn new() -> Progress {
        Progress {
            enabled: std::io::stderr().is_terminal(),
            label: String::new(),
            total: 0,
            itemsize: 1,
            last: None,
            shown: false,
        }
    }

    /// Starts work on `label`: `total` elements of `itemsize` bytes.
    pub fn start(&mut self, label: &str, total: u64, itemsize: u64) {
        self.label = label.to_string();
        self.total = total;
        self.itemsize = itemsize;
        self.last = None;
        self.shown = false;
    }

    /// `done` of the elements are done.
    pub fn set(&mut self, done: u64) {
        if !self.enabled || self.total == 0 {
            return;
        }
        if self.total.saturating_mul(self.itemsize) < MIN_BYTES {
            return;
        }
        let now = Instant::now();
        if self
            .last
            .is_some_and(|t| now - t < Duration::from_millis(100))
            && done < self.total
        {
            return;
        }
        self.last = Some(now);
        let frac = done as f64 / self.total as f64;
        let width = 30;
        let filled = ((frac * width as f64) as usize).min(width);
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r{} [{}{}] {:>5.1}%",
            self.label,
            "#".repeat(filled),
            " ".repeat(width - filled),
            frac * 100.0
        );
        let _ = err.flush();
        self.shown = true;
    }

    /// Clears the bar.
    pub fn finish(&mut self) {
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r{}\r", " ".repeat(self.label.chars().count() + 40));
            let _ = err.flush();
            self.shown = false;
        }
    }
}
