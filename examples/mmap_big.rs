//! Maps an `.npy` file larger than this machine's memory and touches a few elements, as
//! `np.memmap` users do.
//!
//! ```text
//! cargo run --release --example mmap_big            # 64 GiB of f64, sparse
//! cargo run --release --example mmap_big -- 8       # 8 GiB
//! ```
//!
//! The file is created sparse (only touched pages take disk space), written through a
//! read-write map, reopened read-only, checked, and removed.

use ndarray::{Ix3, ShapeBuilder};
use ndnpy::{NpyMmap, NpyMmapMut};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gib: usize = std::env::args().nth(1).map_or(Ok(64), |s| s.parse())?;
    let (a, b) = (1024usize, 2048usize);
    let c = gib * (1 << 30) / 8 / (a * b);
    let dir = std::env::temp_dir().join(format!("ndnpy-mmap-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("big.npy");

    // SAFETY: the file is private to this example; nothing else truncates it while mapped.
    let mut map = unsafe { NpyMmapMut::create::<f64, _>(&path, (a, b, c).f())? };
    let bytes = map.info().data_len;
    println!(
        "created {} ({:.1} GiB of f64, shape {:?}, Fortran order)",
        path.display(),
        bytes as f64 / (1u64 << 30) as f64,
        map.info().header.shape
    );
    let touched = [(0, 0, 0), (500, 1000, c / 2), (a - 1, b - 1, c - 1)];
    {
        let mut view = map.view_mut::<f64, Ix3>()?;
        for (k, &(i, j, l)) in touched.iter().enumerate() {
            view[[i, j, l]] = 3.25 * (k + 1) as f64;
        }
    }
    map.flush()?;
    drop(map);

    // SAFETY: as above.
    let map = unsafe { NpyMmap::open(&path)? };
    let view = map.view::<f64, Ix3>()?;
    for (k, &(i, j, l)) in touched.iter().enumerate() {
        assert_eq!(view[[i, j, l]], 3.25 * (k + 1) as f64);
        println!("  [{i}, {j}, {l}] = {}", view[[i, j, l]]);
    }
    let on_disk = disk_usage(&path).unwrap_or(0);
    println!(
        "file size {} bytes, on disk about {} KiB",
        std::fs::metadata(&path)?.len(),
        on_disk / 1024
    );
    drop(map);
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// Bytes the file really occupies (Unix only).
fn disk_usage(path: &std::path::Path) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| m.blocks() * 512)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}
