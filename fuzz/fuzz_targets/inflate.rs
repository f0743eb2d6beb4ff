//! The inflater against zlib: arbitrary bytes as the deflate stream of an `.npz` member (in an
//! archive built around them, read from memory and through a small buffer). Where zlib
//! inflates them, the member's bytes are zlib's (its size and CRC-32 declared); where zlib
//! rejects them, the read fails; never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use ndnpy::{NpzReader, ReadOptions};
use std::io::{BufReader, Cursor};

/// A zip archive of one deflated member `m` with `data` as its compressed bytes.
fn archive(data: &[u8], crc: u32, size: u32) -> Vec<u8> {
    let name = b"m";
    let fields = |z: &mut Vec<u8>| {
        for v in [20u16, 0, 8, 0, 0x21] {
            z.extend_from_slice(&v.to_le_bytes());
        }
        for v in [crc, data.len() as u32, size] {
            z.extend_from_slice(&v.to_le_bytes());
        }
        z.extend_from_slice(&(name.len() as u16).to_le_bytes());
        z.extend_from_slice(&0u16.to_le_bytes());
    };
    let mut z = 0x0403_4b50u32.to_le_bytes().to_vec();
    fields(&mut z);
    z.extend_from_slice(name);
    z.extend_from_slice(data);
    let cd = z.len();
    z.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
    z.extend_from_slice(&20u16.to_le_bytes());
    fields(&mut z);
    z.extend_from_slice(&[0; 14]); // comment, disk, attributes, local header offset 0
    z.extend_from_slice(name);
    let cd_len = z.len() - cd;
    z.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    z.extend_from_slice(&[0, 0, 0, 0, 1, 0, 1, 0]);
    z.extend_from_slice(&(cd_len as u32).to_le_bytes());
    z.extend_from_slice(&(cd as u32).to_le_bytes());
    z.extend_from_slice(&[0, 0]);
    z
}

fuzz_target!(|data: &[u8]| {
    let mut d = flate2::Decompress::new(false);
    let mut want = Vec::with_capacity(1 << 20);
    let zlib = match d.decompress_vec(data, &mut want, flate2::FlushDecompress::Finish) {
        Ok(flate2::Status::StreamEnd) => Some(want),
        _ => None,
    };
    let (crc, size) = match &zlib {
        Some(w) => (crc32fast::hash(w), w.len() as u32),
        None => (0, 1 << 16),
    };
    let z = archive(data, crc, size);
    let opts = ReadOptions::default();
    let from_memory = NpzReader::with_options(Cursor::new(&z[..]), &opts)
        .and_then(|mut n| n.member("m")?.bytes());
    let buffered = BufReader::with_capacity(5, Cursor::new(&z[..]));
    let through_buffer =
        NpzReader::with_options(buffered, &opts).and_then(|mut n| n.member("m")?.bytes());
    for got in [from_memory, through_buffer] {
        match (&zlib, got) {
            (Some(w), Ok(g)) => assert!(*w == g, "zlib's bytes differ"),
            (None, Err(_)) => {}
            (Some(_), Err(e)) => panic!("zlib inflates it, ndnpy fails: {e}"),
            (None, Ok(_)) => panic!("zlib rejects it, ndnpy reads it"),
        }
    }
});
