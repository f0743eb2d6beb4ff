//! `NpzReader::from_source` and `NpzMember::stored_source`: an archive read through a byte
//! source of a named type gives, member by member, what `NpzReader::open` gives, by every
//! source this crate implements and by a caller's own; a large stored member's checksum comes
//! from the source's `read_at_crc32`, and a wrong one fails the read; a stored member is a
//! source `NpyReader` reads rows and regions of, by every archive reader.

use crate::common::{numpy, Scratch};
use ndarray::{s, Array1, Array2, ArrayD};
use ndnpy::source::{ReadAt, Section, Seeking};
use ndnpy::{ErrorKind, NpyReader, NpzReader};
use std::fs::File;
use std::io::{self, Cursor};

/// numpy's archives: stored, deflated, mixed, keywords and non-`.npy` members, zip64.
const ARCHIVES: &[&str] = &[
    "npz_stored",
    "npz_compressed",
    "npz_deflated_mixed",
    "npz_keywords",
    "npz_non_npy",
    "npz_zip64",
    "npz_streamed",
];

/// Every member of `npz` as `np.load(...)[key]` gives it, as bytes: the whole `.npy` file of
/// an array (read and checked by `bytes`), the raw bytes of any other member.
fn members<R: io::Read + io::Seek>(npz: &mut NpzReader<R>) -> Vec<(String, Vec<u8>)> {
    (0..npz.len())
        .map(|i| {
            let mut m = npz.member(i).unwrap();
            (m.info().name().to_string(), m.bytes().unwrap())
        })
        .collect()
}

/// A caller's source over bytes in memory, without `memory`, that counts its calls and may
/// lie about checksums.
struct Own {
    bytes: Vec<u8>,
    reads: usize,
    hashed: usize,
    wrong_crc: bool,
}

impl Own {
    fn new(bytes: Vec<u8>) -> Own {
        Own {
            bytes,
            reads: 0,
            hashed: 0,
            wrong_crc: false,
        }
    }
}

impl ReadAt for Own {
    fn size(&mut self) -> io::Result<u64> {
        Ok(self.bytes.len() as u64)
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.reads += 1;
        self.bytes.read_at(offset, buf)
    }

    fn read_at_crc32(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<u32> {
        self.hashed += 1;
        self.bytes.read_at(offset, buf)?;
        let crc = crc32(buf);
        Ok(if self.wrong_crc { !crc } else { crc })
    }
}

/// A `Read + Seek` of a type no door knows: read by seeking.
struct Opaque(Cursor<Vec<u8>>);

impl io::Read for Opaque {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl io::Seek for Opaque {
    fn seek(&mut self, to: io::SeekFrom) -> io::Result<u64> {
        self.0.seek(to)
    }
}

/// The CRC-32 of `bytes`, bit by bit (as zlib defines it), independent of the crate's.
fn crc32(bytes: &[u8]) -> u32 {
    let mut table = [0u32; 256];
    for (i, t) in table.iter_mut().enumerate() {
        let mut c = i as u32;
        for _ in 0..8 {
            c = if c & 1 == 1 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
        *t = c;
    }
    !bytes.iter().fold(!0u32, |c, &b| {
        table[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8)
    })
}

#[test]
fn every_source_reads_numpys_archives_as_open_does() {
    for name in ARCHIVES {
        let path = format!("testdata/{name}.npz");
        let want = members(&mut NpzReader::open(&path).unwrap());
        assert!(!want.is_empty(), "{name}");
        let bytes = std::fs::read(&path).unwrap();
        let mut prefixed = b"a prefix".to_vec();
        prefixed.extend_from_slice(&bytes);

        let file = File::open(&path).unwrap();
        let got = members(&mut NpzReader::from_source(file).unwrap());
        assert_eq!(got, want, "{name}: File");
        let file = File::open(&path).unwrap();
        let got = members(&mut NpzReader::from_source(&file).unwrap());
        assert_eq!(got, want, "{name}: &File");
        let got = members(&mut NpzReader::from_source(&bytes[..]).unwrap());
        assert_eq!(got, want, "{name}: &[u8]");
        let got = members(&mut NpzReader::from_source(bytes.clone()).unwrap());
        assert_eq!(got, want, "{name}: Vec<u8>");
        let seeking = Seeking::new(Cursor::new(bytes.clone()));
        let got = members(&mut NpzReader::from_source(seeking).unwrap());
        assert_eq!(got, want, "{name}: Seeking");
        let section = Section::new(&prefixed[..], 8, u64::MAX);
        let got = members(&mut NpzReader::from_source(section).unwrap());
        assert_eq!(got, want, "{name}: Section of bytes");
        let mut own = Own::new(prefixed.clone());
        let got =
            members(&mut NpzReader::from_source(Section::new(&mut own, 8, u64::MAX)).unwrap());
        assert_eq!(got, want, "{name}: a caller's source");
        assert!(own.reads > 0, "{name}");

        // Typed reads, as `open`'s: the first array member.
        let mut npz = NpzReader::open(&path).unwrap();
        let mut by_source = NpzReader::from_source(&bytes[..]).unwrap();
        for i in 0..npz.len() {
            let (a, b) = (
                npz.member(i).unwrap().read_dyn(),
                by_source.member(i).unwrap().read_dyn(),
            );
            match (a, b) {
                (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "{name} {i}"),
                (Err(a), Err(b)) => assert_eq!(a.kind(), b.kind(), "{name} {i}"),
                (a, b) => panic!("{name} {i}: {a:?} against {b:?}"),
            }
        }
    }
}

#[test]
fn a_large_stored_member_is_hashed_by_its_sources_read_at_crc32() {
    let dir = Scratch::new("npz-source-crc");
    // 20 MiB, over the size from which a member's bulk is read with its checksum.
    numpy(
        &dir.0,
        "np.savez(d + '/big.npz', a=np.arange(20 << 17, dtype='<f8'), b=np.arange(5, dtype='<i2'))",
    );
    let path = dir.path("big.npz");
    let bytes = std::fs::read(&path).unwrap();
    let want = Array1::from_shape_fn(20 << 17, |i| i as f64);

    // The file's own: split over threads and hashed as it lands.
    let mut npz = NpzReader::from_source(File::open(&path).unwrap()).unwrap();
    let a: Array1<f64> = npz.by_name("a").unwrap();
    assert_eq!(a, want);

    let mut npz = NpzReader::from_source(Own::new(bytes.clone())).unwrap();
    let a: Array1<f64> = npz.by_name("a").unwrap();
    assert_eq!(a, want);
    let b: Array1<i16> = npz.by_name("b").unwrap();
    assert_eq!(b, ndarray::array![0, 1, 2, 3, 4]);
    let own = npz.into_inner().into_inner();
    assert_eq!(own.hashed, 1, "one hashed read of the large member's bulk");

    // A source whose checksums are wrong fails the large member, and only it.
    let mut liar = Own::new(bytes);
    liar.wrong_crc = true;
    let mut npz = NpzReader::from_source(liar).unwrap();
    let err = npz
        .member("a")
        .unwrap()
        .read::<ndarray::OwnedRepr<f64>, ndarray::Ix1>()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Archive, "{err}");
    assert_eq!(err.fault(), Some(ndnpy::Fault::Checksum), "{err}");
    assert_eq!(err.member(), Some("a.npy"));
    let b: Array1<i16> = npz.by_name("b").unwrap();
    assert_eq!(b.len(), 5);
}

#[test]
fn a_read_at_crc32_gives_the_bytes_and_their_checksum_by_every_source() {
    let dir = Scratch::new("npz-source-read-crc");
    let data: Vec<u8> = (0..(17usize << 20)).map(|i| (i * 7 % 251) as u8).collect();
    let path = dir.path("data.bin");
    std::fs::write(&path, &data).unwrap();
    for (offset, len) in [(0, 0), (3, 100), (1, (17 << 20) - 1), (5 << 20, 12 << 20)] {
        let want = &data[offset..offset + len];
        let mut buf = vec![0u8; len];
        let crc = File::open(&path)
            .unwrap()
            .read_at_crc32(offset as u64, &mut buf)
            .unwrap();
        assert_eq!((&buf[..], crc), (want, crc32(want)), "File at {offset}");
        let crc = (&data[..]).read_at_crc32(offset as u64, &mut buf).unwrap();
        assert_eq!((&buf[..], crc), (want, crc32(want)), "bytes at {offset}");
        let mut section = Section::new(File::open(&path).unwrap(), 1, u64::MAX);
        if offset >= 1 {
            let crc = section.read_at_crc32(offset as u64 - 1, &mut buf).unwrap();
            assert_eq!((&buf[..], crc), (want, crc32(want)), "Section at {offset}");
        }
    }
    // Past the end: the source's error, as `read_at`'s.
    let mut buf = vec![0u8; 17 << 20];
    let err = File::open(&path)
        .unwrap()
        .read_at_crc32(1, &mut buf)
        .unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    let err = (&data[..]).read_at_crc32(1, &mut buf).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
}

#[test]
fn a_stored_member_is_a_source_npy_reader_reads_by_every_archive_reader() {
    let dir = Scratch::new("npz-stored-source");
    numpy(
        &dir.0,
        "a = np.arange(60 * 7, dtype='<f8').reshape(60, 7) / 4\n\
         np.savez(d + '/m.npz', x=np.arange(3, dtype='<i4'), a=a, f=np.asfortranarray(a), be=a.astype('>i8'))\n\
         np.savez_compressed(d + '/c.npz', a=a)",
    );
    let path = dir.path("m.npz");
    let bytes = std::fs::read(&path).unwrap();
    let a = Array2::from_shape_fn((60, 7), |(i, j)| (i * 7 + j) as f64 / 4.0);

    fn check<R: io::Read + io::Seek>(mut npz: NpzReader<R>, a: &Array2<f64>, what: &str) {
        for key in ["a", "f"] {
            let mut member = npz.member(key).unwrap();
            let source = member.stored_source().unwrap().expect("np.savez stores");
            let mut npy = NpyReader::new(source).unwrap();
            let rows: Array2<f64> = npy.read_rows(2..5).unwrap();
            // Fortran order: the steps are along the last axis.
            let want = if key == "a" {
                a.slice(s![2..5, ..])
            } else {
                a.slice(s![.., 2..5])
            };
            assert_eq!(rows, want, "{what} {key}");
            let col: Array1<f64> = npy.read_slice(s![.., 3]).unwrap();
            assert_eq!(col, a.column(3), "{what} {key}");
            let all: ArrayD<f64> = npy.read_array().unwrap();
            assert_eq!(all, a.clone().into_dyn(), "{what} {key}");
        }
        let mut member = npz.member("be").unwrap();
        let mut npy = NpyReader::new(member.stored_source().unwrap().unwrap()).unwrap();
        assert_eq!(
            npy.read_element::<i64>(&[59, 6]).unwrap(),
            a[[59, 6]] as i64
        );
        drop(npy);
        let mut member = npz.member("x").unwrap();
        let mut source = member.stored_source().unwrap().unwrap();
        let mut whole = vec![0u8; source.size().unwrap() as usize];
        source.read_at(0, &mut whole).unwrap();
        drop(source);
        assert_eq!(whole, member.bytes().unwrap(), "{what}: the member's bytes");
    }
    check(NpzReader::open(&path).unwrap(), &a, "open");
    check(
        NpzReader::new(Cursor::new(&bytes[..])).unwrap(),
        &a,
        "Cursor",
    );
    check(
        NpzReader::new(io::BufReader::new(File::open(&path).unwrap())).unwrap(),
        &a,
        "BufReader",
    );
    let opaque = Opaque(Cursor::new(bytes.clone()));
    check(
        NpzReader::new(opaque).unwrap(),
        &a,
        "a Read + Seek of the caller's",
    );
    check(
        NpzReader::from_source(&bytes[..]).unwrap(),
        &a,
        "from_source(bytes)",
    );
    check(
        NpzReader::from_source(Own::new(bytes.clone())).unwrap(),
        &a,
        "from_source(own)",
    );

    let mut npz = NpzReader::open(dir.path("c.npz")).unwrap();
    assert!(npz.member("a").unwrap().stored_source().unwrap().is_none());
}
