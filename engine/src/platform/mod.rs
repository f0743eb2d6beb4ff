//! What the operating system gives: the system calls the standard library lacks (`sys`),
//! publishing files atomically and durably (`fsutil`), faulting an output buffer in on a
//! second core (`prefault`), and read loops (`ioutil`).

pub mod fsutil;
pub mod ioutil;
pub mod prefault;
pub mod sys;
