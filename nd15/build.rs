//! The source in src/ is ndnpy's, written for ndarray 0.17; `nd15` marks where ndarray 0.15's
//! API differs (no `ArrayRef`).
fn main() {
    println!("cargo::rustc-check-cfg=cfg(nd15)");
    println!("cargo::rustc-check-cfg=cfg(nd16)");
    println!("cargo::rustc-cfg=nd15");
}
