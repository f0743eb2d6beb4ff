//! What every layer speaks: numpy's dtypes and time units, Python's `repr` of strings and
//! shapes, and the crate's error.

pub mod dtype;
pub(crate) mod error;
pub(crate) mod printable_table;
pub(crate) mod pyrepr;
pub mod unit;
