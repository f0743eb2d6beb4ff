//! Which ndarray-npy version the application is written for, from the package's name (the
//! packages `ndnpy-compat-app08*` and `app09*` build this source for 0.8 and 0.9, the others
//! for 0.10): `cfg(ndarray_npy = "0.8")` and `"0.9"` leave out what those versions lack, as an
//! application written for them would. A cfg rather than a feature, which `--all-features`
//! would turn on in every package at once.
fn main() {
    let name = std::env::var("CARGO_PKG_NAME").unwrap_or_default();
    let version = if name.starts_with("ndnpy-compat-app08") {
        "0.8"
    } else if name.starts_with("ndnpy-compat-app09") {
        "0.9"
    } else {
        "0.10"
    };
    println!("cargo::rustc-check-cfg=cfg(ndarray_npy, values(\"0.8\", \"0.9\", \"0.10\"))");
    // `cfg(ndnpy)`: built against ndnpy's crate (the packages not named `-real`), for the one
    // assertion where ndarray-npy 0.8 and ndnpy part (see tests/app.rs).
    println!("cargo::rustc-check-cfg=cfg(ndnpy)");
    if !name.ends_with("-real") {
        println!("cargo::rustc-cfg=ndnpy");
    }
    println!("cargo::rustc-cfg=ndarray_npy=\"{version}\"");
}
