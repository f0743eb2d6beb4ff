//! Objects in a store read through `RemoteFile` and written through `RemoteWriter`, against a
//! real S3-protocol server on loopback: moto's server (`python3 -m moto.server`, installed by `.ci/run` with
//! `pip install 'moto[server]'`), started by these tests as a child process that exits with
//! this binary. Fixtures are uploaded with `object_store` itself; every result is compared
//! with the local read of the same bytes. Requests and bytes are counted by `Counting`, a
//! decorator that forwards every call to the real store and counts the GETs and the body
//! bytes they return (HTTP headers are not counted).
//!
//! Without moto these tests fail, saying how to install it; they do not skip. A binary of its
//! own rather than a module of `tests/it` (see `Cargo.toml`).

mod harness;
mod http;
mod npy;
mod npz;
mod write;
