//! What every layer speaks: numpy's dtypes and time units, Python's `repr` of strings and
//! shapes, and the crate's error.

pub mod dtype;
pub mod error;
pub mod printable_table;
pub mod pyrepr;
pub mod unit;
