//! The `safetensors` case: a 1 GiB `.npz` bundle (stored, as `np.savez` writes it) converted to
//! safetensors by `ndnpy::safetensors::npz_to_safetensors`, against copying the same bytes:
//! `std::fs::copy` of the archive (in-kernel `copy_file_range`) and a read + write of the
//! members' bytes through an 8 MiB buffer (what any converter must at least do).

use crate::cases::{remove_if_exists, Cleanup, NDNPY};
use crate::{Config, Imp, Report, Res};
use ndnpy::NpzReader;
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Instant;

const COPY: &str = "floor: std::fs::copy of the .npz";
const READ_WRITE: &str = "floor: read + write of the member bytes (8 MiB buffer)";
const MEMBERS: usize = 8;

/// The member data's byte ranges in the archive (stored members), in member order.
fn data_ranges(npz_path: &Path) -> Res<Vec<(u64, u64)>> {
    let mut npz = NpzReader::open(npz_path)?;
    let mut out = Vec::new();
    for k in 0..npz.len() {
        let mut m = npz.member(k)?;
        let info = m.header()?;
        let range = m.stored_range()?.ok_or("the bundle's members are stored")?;
        out.push((range.start + info.data_offset, range.end));
    }
    Ok(out)
}

/// Copies `ranges` of `input` into a new file `output` through one 8 MiB buffer.
fn read_write(input: &Path, ranges: &[(u64, u64)], output: &Path) -> Res<()> {
    let src = File::open(input)?;
    let mut dst = File::create(output)?;
    let mut buf = vec![0u8; 8 << 20];
    for &(start, end) in ranges {
        let mut at = start;
        while at < end {
            let n = ((end - at) as usize).min(buf.len());
            src.read_exact_at(&mut buf[..n], at)?;
            dst.write_all(&buf[..n])?;
            at += n as u64;
        }
    }
    Ok(())
}

/// The safetensors file's data section equals the members' data in member order (the
/// members are all f32 and named in sorted order, so safetensors keeps that order).
fn check(out: &Path, input: &Path, ranges: &[(u64, u64)]) -> Res<()> {
    let st = std::fs::read(out)?;
    let n = u64::from_le_bytes(st[..8].try_into()?) as usize;
    let header = std::str::from_utf8(&st[8..8 + n])?;
    if !header.starts_with("{\"w0\":{\"dtype\":\"F32\"") {
        return Err(format!("unexpected header {:?}", &header[..header.len().min(80)]).into());
    }
    let src = File::open(input)?;
    let mut at = 8 + n;
    for &(start, end) in ranges {
        let mut want = vec![0u8; (end - start) as usize];
        src.read_exact_at(&mut want, start)?;
        if st.get(at..at + want.len()) != Some(&want[..]) {
            return Err("the tensor data differs from the members' data".into());
        }
        at += want.len();
    }
    if at != st.len() {
        return Err("bytes after the last tensor".into());
    }
    Ok(())
}

/// `safetensors`: a bundle of `MEMBERS` f32 members, 1 GiB in all by default (4 × `--size-mib`).
pub fn safetensors_case(cfg: &Config) -> Res<Report> {
    let total = cfg.big_mib() << 20;
    let per = total / MEMBERS / 4;
    let npz_path = cfg.dir.join("bundle.npz");
    let out = cfg.dir.join("bundle.safetensors");
    let copy = cfg.dir.join("bundle_copy.npz");
    let raw = cfg.dir.join("bundle_raw.bin");
    let _cleanup = Cleanup(vec![
        npz_path.clone(),
        out.clone(),
        copy.clone(),
        raw.clone(),
    ]);
    {
        let mut npz = ndnpy::NpzWriter::create(&npz_path)?;
        for k in 0..MEMBERS {
            let a = ndarray::Array2::from_shape_fn((per / 1024, 1024), |(i, j)| {
                (i * 1024 + j) as f32 * 0.5 + k as f32
            });
            npz.add_array(format!("w{k}"), &a)?;
        }
        npz.finish()?;
    }
    let ranges = data_ranges(&npz_path)?;
    let data_bytes: u64 = ranges.iter().map(|(s, e)| e - s).sum();
    let imps = vec![
        Imp::new(NDNPY, |checking| {
            remove_if_exists(&out)?;
            let t = Instant::now();
            ndnpy::safetensors::npz_to_safetensors(&npz_path, &out)?;
            let d = t.elapsed();
            if checking {
                check(&out, &npz_path, &ranges)?;
            }
            Ok(d)
        }),
        Imp::new(COPY, |_| {
            remove_if_exists(&copy)?;
            let t = Instant::now();
            std::fs::copy(&npz_path, &copy)?;
            Ok(t.elapsed())
        }),
        Imp::new(READ_WRITE, |checking| {
            remove_if_exists(&raw)?;
            let t = Instant::now();
            read_write(&npz_path, &ranges, &raw)?;
            let d = t.elapsed();
            if checking && std::fs::metadata(&raw)?.len() != data_bytes {
                return Err("short copy".into());
            }
            Ok(d)
        }),
    ];
    let rows = crate::measure(imps, cfg.rounds)?;
    Ok(Report {
        title: format!(
            "safetensors: a {:.0} MiB .npz of {MEMBERS} stored f32 members to .safetensors",
            data_bytes as f64 / f64::from(1 << 20)
        ),
        bytes: Some(data_bytes),
        rows,
        targets: vec![(COPY, 1.1), (READ_WRITE, 1.1)],
        notes: vec![
            "Every run writes a new file in the page cache (the previous one is removed first, \
             untimed), none durable; the archive is read from the page cache. The archive is \
             written by ndnpy's NpzWriter, whose stored members are np.savez's bytes."
                .into(),
        ],
        ..Report::default()
    })
}
