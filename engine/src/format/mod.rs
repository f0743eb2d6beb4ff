//! The `.npy` format itself: dtype descriptors (`descr`), the header's Python literal
//! (`literal`), the header (`header`), and numpy's rules for shapes and memory order
//! (`layout`).

pub mod descr;
pub mod header;
pub mod layout;
pub mod literal;
