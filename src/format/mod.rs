//! The `.npy` format itself: dtype descriptors (`descr`), the header's Python literal
//! (`literal`), the header (`header`), and numpy's rules for shapes and memory order
//! (`layout`).

pub(crate) mod descr;
pub mod header;
pub(crate) mod layout;
pub(crate) mod literal;
