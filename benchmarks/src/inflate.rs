//! `inflate`: whole deflated members of known size, as numpy's `np.savez_compressed` writes
//! them (floats, integers, strings, records; 1 to 256 MiB), inflated by libdeflate (the
//! `libdeflater` crate, one call into a buffer of the member's size) and by zlib-rs (flate2,
//! the same one call), beside ndnpy's array read (its own inflater) and numpy's
//! `np.load(path)['a']`. It answers whether libdeflate would still be worth its C build for
//! members whose size the directory declares.

use crate::cases::{path_str, Cleanup, NDNPY, NUMPY};
use crate::numpy::Numpy;
use crate::{Config, Goal, Imp, Report, Res};
use std::cell::RefCell;
use std::hint::black_box;
use std::time::Instant;

const LIBDEFLATE: &str = "libdeflate";
const ZLIB_RS: &str = "zlib-rs (flate2)";
/// What a whole-member libdeflate read in ndnpy would cost: the member inflated whole (no
/// streaming into the array's memory), its CRC-32, then its data copied into the array.
/// The member's bytes (its whole `.npy` file) as a `Vec<u8>`, `NpzMember::bytes`.
const BYTES: &str = "ndnpy member bytes()";
const LIBDEFLATE_WHOLE: &str = "libdeflate + CRC-32 + copy to the array";

/// Where the data starts in a whole `.npy` file's bytes (after the header).
fn data_offset(npy: &[u8]) -> Res<usize> {
    let short = || -> Box<dyn std::error::Error> { "member shorter than its header".into() };
    let version = *npy.get(6).ok_or_else(short)?;
    Ok(if version == 1 {
        10 + usize::from(u16::from_le_bytes([npy[8], npy[9]]))
    } else {
        let b = npy.get(8..12).ok_or_else(short)?;
        12 + u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize
    })
}

/// The kinds of data, as `numpy_worker.py`'s `inflate_array` makes them.
const KINDS: [&str; 4] = ["floats", "ints", "strings", "records"];

/// The member sizes, in MiB, up to `--size-mib`.
const SIZES: [usize; 4] = [1, 16, 64, 256];

/// Inflates `raw` into a fresh buffer of `size` bytes with libdeflate.
fn libdeflate(raw: &[u8], size: usize) -> Res<Vec<u8>> {
    let mut out = vec![0u8; size];
    let n = libdeflater::Decompressor::new()
        .deflate_decompress(raw, &mut out)
        .map_err(|e| format!("libdeflate: {e:?}"))?;
    if n != size {
        return Err(format!("libdeflate: {n} bytes, expected {size}").into());
    }
    Ok(out)
}

/// Inflates `raw` into a fresh buffer of `size` bytes with flate2 on zlib-rs, as ndnpy's
/// member reader does, in one call.
fn zlib_rs(raw: &[u8], size: usize) -> Res<Vec<u8>> {
    use flate2::{Decompress, FlushDecompress, Status};
    let mut out = vec![0u8; size];
    let mut z = Decompress::new(false);
    loop {
        let (i, o) = (z.total_in() as usize, z.total_out() as usize);
        let status = z.decompress(&raw[i..], &mut out[o..], FlushDecompress::Finish)?;
        if status == Status::StreamEnd {
            break;
        }
        if z.total_in() as usize == i && z.total_out() as usize == o {
            return Err("zlib-rs: no progress".into());
        }
    }
    if z.total_out() as usize != size {
        return Err(format!("zlib-rs: {} bytes, expected {size}", z.total_out()).into());
    }
    Ok(out)
}

fn check_crc(who: &str, out: &[u8], crc: u32) -> Res<()> {
    let mut h = flate2::Crc::new();
    h.update(out);
    if h.sum() != crc {
        return Err(format!("{who}: CRC-32 {:08x}, expected {crc:08x}", h.sum()).into());
    }
    Ok(())
}

/// One table per kind and size.
pub fn inflate_case(cfg: &Config, np: &mut Numpy) -> Res<Vec<Report>> {
    let mut reports = Vec::new();
    let np = RefCell::new(np);
    for kind in KINDS {
        for mib in SIZES.into_iter().filter(|&m| m <= cfg.size_mib) {
            let path = cfg.dir.join(format!("inflate_{kind}_{mib}.npz"));
            let raw_path = cfg.dir.join(format!("inflate_{kind}_{mib}.npz.deflate"));
            let _cleanup = Cleanup(vec![path.clone(), raw_path.clone()]);
            let p = path_str(&path)?;
            let reply = np
                .borrow_mut()
                .call(&format!("inflate_gen {p} {kind} {}", mib << 20))?;
            let mut it = reply.split(' ').skip(1).map(|x| x.parse::<u64>());
            let (Some(Ok(size)), Some(Ok(crc))) = (it.next(), it.next()) else {
                return Err(format!("numpy worker, inflate_gen: {reply}").into());
            };
            let (size, crc) = (usize::try_from(size)?, u32::try_from(crc)?);
            let raw = std::fs::read(&raw_path)?;
            let (raw, path) = (&raw[..], path.as_path());
            let np = &np;
            let imps = vec![
                Imp::new(LIBDEFLATE, move |check| {
                    let t = Instant::now();
                    let out = libdeflate(raw, size)?;
                    let d = t.elapsed();
                    if check {
                        check_crc(LIBDEFLATE, &out, crc)?;
                    }
                    black_box(out);
                    Ok(d)
                }),
                Imp::new(LIBDEFLATE_WHOLE, move |check| {
                    let t = Instant::now();
                    let out = libdeflate(raw, size)?;
                    let mut h = flate2::Crc::new();
                    h.update(&out);
                    let array = out[data_offset(&out)?..].to_vec();
                    let d = t.elapsed();
                    if check && h.sum() != crc {
                        return Err(format!("{LIBDEFLATE_WHOLE}: CRC-32 mismatch").into());
                    }
                    black_box(array);
                    Ok(d)
                }),
                Imp::new(ZLIB_RS, move |check| {
                    let t = Instant::now();
                    let out = zlib_rs(raw, size)?;
                    let d = t.elapsed();
                    if check {
                        check_crc(ZLIB_RS, &out, crc)?;
                    }
                    black_box(out);
                    Ok(d)
                }),
                Imp::new(NDNPY, move |check| {
                    let t = Instant::now();
                    let mut npz = ndnpy::NpzReader::open(path)?;
                    // Strings as their fixed-width code points: as a `DynArray` each would
                    // be decoded into a `String` of its own.
                    let len = if kind == "strings" {
                        let a: ndarray::Array1<ndnpy::element::FixedUnicode<16>> =
                            npz.by_name("a")?;
                        black_box(&a);
                        a.len() * 64
                    } else {
                        let a = npz.member("a")?.read_dyn()?;
                        black_box(&a);
                        a.shape().iter().product::<usize>() * a.dtype().itemsize()
                    };
                    let d = t.elapsed();
                    if check {
                        let out = ndnpy::NpzReader::open(path)?.member("a")?.bytes()?;
                        check_crc(NDNPY, &out, crc)?;
                        if out.len() - data_offset(&out)? != len {
                            return Err(format!("{NDNPY}: the array's size differs").into());
                        }
                    }
                    Ok(d)
                }),
                Imp::new(BYTES, move |check| {
                    let t = Instant::now();
                    let out = ndnpy::NpzReader::open(path)?.member("a")?.bytes()?;
                    let d = t.elapsed();
                    if check {
                        check_crc(BYTES, &out, crc)?;
                    }
                    black_box(out);
                    Ok(d)
                }),
                Imp::new(NUMPY, move |_| {
                    np.borrow_mut().timed(&format!("npz_read {p} a"))
                }),
            ];
            // Small members take a few milliseconds: more rounds.
            let rounds = if mib <= 16 {
                cfg.rounds * 3
            } else {
                cfg.rounds
            };
            let rows = crate::measure(imps, rounds)?;
            let med = |name: &str| {
                rows.iter()
                    .find(|r| r.0 == name)
                    .map(|r| crate::median_secs(&r.1))
                    .unwrap_or(f64::NAN)
            };
            let speedup = med(NDNPY) / med(LIBDEFLATE_WHOLE);
            let mut goals = vec![Goal {
                text: format!(
                    "ndnpy ÷ libdeflate's whole-member read = {speedup:.2}x (libdeflate is worth \
                     its C build at ≥ 1.25x)"
                ),
                met: speedup < 1.25,
            }];
            goals.extend(crate::doors::ratio_goals(&rows, &[BYTES], &[(NDNPY, 1.1)]));
            reports.push(Report {
                title: format!(
                    "inflate: a {mib} MiB np.savez_compressed member of {kind} ({} → {} bytes, \
                     {:.2}x)",
                    raw.len(),
                    size,
                    size as f64 / raw.len() as f64
                ),
                bytes: Some(size as u64),
                rows,
                targets: vec![],
                goals,
                notes: vec![format!(
                    "The member `a.npy` of `np.savez_compressed(path, a=inflate_array('{kind}', \
                     {} MiB))` (numpy_worker.py; zlib level 6, as numpy writes). libdeflate: \
                     `Decompressor::new().deflate_decompress(raw, &mut vec![0u8; size])` of the \
                     member's raw deflate stream, already in memory; zlib-rs: flate2's \
                     `Decompress::new(false).decompress(raw, &mut vec![0u8; size], Finish)`, \
                     the inflater ndnpy's member reader used before its own. ndnpy: \
                     `NpzReader::open(path)?.member(\"a\")?.read_dyn()` (strings: \
                     `by_name::<_, Ix1>(\"a\")` as `element::FixedUnicode<16>`; the file read, inflated \
                     straight into the array and CRC-checked); libdeflate + CRC-32 + \
                     copy: what ndnpy's array read would do with libdeflate, which cannot stream \
                     into the array (the header must be parsed first): the member inflated \
                     whole, hashed, and its data copied into a fresh buffer; {BYTES}: \
                     `NpzReader::open(path)?.member(\"a\")?.bytes()` (the whole `.npy` file, \
                     CRC-checked); numpy: `with \
                     np.load(path) as d: d['a']`. Checked: every Rust row's CRC-32 against the \
                     member's (ndnpy's through `bytes()`, and its array's size).",
                    mib
                )],
                ..Report::default()
            });
        }
    }
    Ok(reports)
}
