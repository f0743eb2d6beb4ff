//! `.npy`/`.npz` <-> Parquet (feature `parquet`), judged by real readers: pyarrow loads what
//! we write (values, types, nulls), DuckDB queries it, and what pyarrow writes (every codec,
//! nulls, strings) we read as numpy would hold it. Bad input leaves no output file; a large
//! array streams through in bounded memory.

use crate::common::{numpy, Scratch};
use ndnpy::parquet::{
    npy_to_parquet, npz_to_parquet, parquet_to_dyn, parquet_to_npy, ParquetOptions,
};
use ndnpy::{ErrorKind, Fault};

#[test]
fn pyarrow_reads_what_we_write_with_numpys_values_and_arrows_types() {
    let dir = Scratch::new("pq-out");
    numpy(
        &dir.0,
        "np.save(d + '/emb.npy', (np.arange(4000 * 8) / 7).astype(np.float16).reshape(4000, 8))
np.save(d + '/fort.npy', np.asfortranarray(np.arange(60, dtype='>i4').reshape(5, 3, 4)))
rec = np.array([(i, i / 2, str(i) * (i % 4), np.datetime64(i, 'ms') if i % 5 else np.datetime64('NaT'), (i, -i), [i, i + 1])
                for i in range(100)],
               [('id', '<i8'), ('x', '>f8'), ('s', '<U3'), ('t', 'M8[ms]'), ('p', [('a', 'u1'), ('b', 'i2')]), ('v', '<f4', (2,))])
np.save(d + '/rec.npy', rec)
np.save(d + '/c.npy', np.array([1+2j, 3-4j]))
np.save(d + '/scalar.npy', np.array(3.5))",
    );
    for (name, groups) in [("emb", 7), ("fort", 2), ("rec", 1), ("c", 1), ("scalar", 1)] {
        let opts = ParquetOptions::new()
            .row_group_rows(if name == "rec" { 1000 } else { 600 })
            .compression("snappy");
        let opts = if name == "fort" {
            opts.row_group_rows(3)
        } else {
            opts
        };
        opts.npy_to_parquet(
            dir.path(&format!("{name}.npy")),
            dir.path(&format!("{name}.parquet")),
        )
        .unwrap();
        let out = numpy(
            &dir.0,
            &format!(
                "import pyarrow.parquet as pq
f = pq.ParquetFile(d + '/{name}.parquet')
print(f.metadata.num_row_groups, f.metadata.row_group(0).column(0).compression)"
            ),
        );
        assert_eq!(out, format!("{groups} SNAPPY"), "{name}");
    }
    let out = numpy(
        &dir.0,
        "import pyarrow.parquet as pq, pyarrow as pa
t = pq.read_table(d + '/emb.parquet')
assert t.schema.field('values').type == pa.list_(pa.float16(), 8), t.schema
a = np.load(d + '/emb.npy')
np.testing.assert_array_equal(np.stack(t.column('values').to_numpy()), a)
t = pq.read_table(d + '/fort.parquet')
assert t.schema.field('values').type == pa.list_(pa.list_(pa.int32(), 4), 3), t.schema
got = np.array(t.column('values').to_pylist())
np.testing.assert_array_equal(got, np.load(d + '/fort.npy'))
t = pq.read_table(d + '/rec.parquet')
r = np.load(d + '/rec.npy')
assert t.column_names == ['id', 'x', 's', 't', 'p', 'v'], t.column_names
assert str(t.schema.field('t').type) == 'timestamp[ms]', t.schema
np.testing.assert_array_equal(t.column('id').to_numpy(), r['id'])
np.testing.assert_array_equal(t.column('x').to_numpy(), r['x'])
assert t.column('s').to_pylist() == r['s'].tolist()
ts = t.column('t')
assert ts.null_count == 20, ts.null_count
assert ts.to_pylist()[1] is not None and ts.to_pylist()[0] is None
assert [p['b'] for p in t.column('p').to_pylist()] == r['p']['b'].tolist()
np.testing.assert_array_equal(np.stack(t.column('v').to_numpy(zero_copy_only=False)), r['v'])
c = pq.read_table(d + '/c.parquet').column('values')
assert c.type == pa.list_(pa.float64(), 2), c.type
np.testing.assert_array_equal(np.stack(c.to_numpy(zero_copy_only=False)).view(np.complex128)[:, 0], np.load(d + '/c.npy'))
s = pq.read_table(d + '/scalar.parquet').column('values').to_pylist()
assert s == [3.5], s
print('ok')",
    );
    assert_eq!(out, "ok");
}

#[test]
fn duckdb_queries_what_we_write() {
    let dir = Scratch::new("pq-duck");
    numpy(
        &dir.0,
        "rec = np.array([(i, i * 0.5, 'k%d' % (i % 3)) for i in range(1000)], [('id', '<i4'), ('w', '<f8'), ('k', '<U2')])
np.save(d + '/t.npy', rec)",
    );
    ParquetOptions::new()
        .compression("zstd")
        .row_group_rows(300)
        .npy_to_parquet(dir.path("t.npy"), dir.path("t.parquet"))
        .unwrap();
    let out = numpy(
        &dir.0,
        "import duckdb
r = duckdb.sql(f\"select k, count(*), sum(id), sum(w) from '{d}/t.parquet' group by k order by k\").fetchall()
print(r)",
    );
    assert_eq!(
        out,
        "[('k0', 334, 166833, 83416.5), ('k1', 333, 166167, 83083.5), ('k2', 333, 166500, 83250.0)]"
    );
}

#[test]
fn what_pyarrow_writes_we_read_with_every_codec() {
    let dir = Scratch::new("pq-in");
    numpy(
        &dir.0,
        "import pyarrow as pa, pyarrow.parquet as pq
t = pa.table({
    'i': pa.array([1, 2, 3], pa.int16()),
    'f': pa.array([0.5, None, 2.5], pa.float32()),
    's': pa.array(['a', 'bcd', None]),
    'b': pa.array([b'x', b'', b'yz'], pa.large_binary()),
    'ts': pa.array([1, None, 3], pa.timestamp('us', tz='UTC')),
    'd': pa.array([0, 1, 2], pa.date32()),
    'ok': pa.array([True, False, True]),
    'emb': pa.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], pa.list_(pa.float64(), 2)),
})
for codec in ['none', 'snappy', 'zstd', 'lz4', 'gzip', 'brotli']:
    pq.write_table(t, d + '/t_%s.parquet' % codec, compression=codec, row_group_size=2)
pq.write_table(t.select(['emb']), d + '/emb.parquet')",
    );
    for codec in ["none", "snappy", "zstd", "lz4", "gzip"] {
        let input = dir.path(&format!("t_{codec}.parquet"));
        // Nulls in a float and a string column: refused without a fill value.
        let err = parquet_to_npy(&input, dir.path("t.npy")).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Usage, "{codec}: {err}");
        assert!(!dir.path("t.npy").exists());
        ParquetOptions::new()
            .fill_nulls(f64::NAN)
            .parquet_to_npy(&input, dir.path("t.npy"))
            .unwrap();
        let out = numpy(
            &dir.0,
            "t = np.load(d + '/t.npy')
print(t.dtype.descr)
print(t['i'].tolist(), t['f'].tolist(), t['s'].tolist(), t['b'].tolist(), t['ts'].astype(str).tolist(), t['d'].astype(str).tolist(), t['ok'].tolist(), t['emb'].tolist())",
        );
        assert_eq!(
            out,
            "[('i', '<i2'), ('f', '<f4'), ('s', '<U3'), ('b', '|S2'), ('ts', '<M8[us]'), ('d', '<M8[D]'), ('ok', '|b1'), ('emb', '<f8', (2,))]\n\
             [1, 2, 3] [0.5, nan, 2.5] ['a', 'bcd', ''] [b'x', b'', b'yz'] ['1970-01-01T00:00:00.000001', 'NaT', '1970-01-01T00:00:00.000003'] ['1970-01-01', '1970-01-02', '1970-01-03'] [True, False, True] [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]",
            "{codec}"
        );
        std::fs::remove_file(dir.path("t.npy")).unwrap();
    }
    // A codec the build lacks is a clear error, and no output.
    let err = ParquetOptions::new()
        .fill_nulls(0.0)
        .parquet_to_npy(dir.path("t_brotli.parquet"), dir.path("br.npy"))
        .unwrap_err();
    // (Its text names the codec: `messages`.)
    assert_eq!(err.fault(), Some(ndnpy::Fault::Foreign), "{err}");
    assert!(!dir.path("br.npy").exists());

    // One column: its array, lists as an axis; columns by name, in the order asked.
    parquet_to_npy(dir.path("emb.parquet"), dir.path("emb.npy")).unwrap();
    let out = numpy(
        &dir.0,
        "e = np.load(d + '/emb.npy'); print(e.dtype, e.shape, e[2].tolist())",
    );
    assert_eq!(out, "float64 (3, 2) [5.0, 6.0]");
    let picked = ParquetOptions::new()
        .columns(["ok", "i"])
        .parquet_to_dyn(dir.path("t_none.parquet"))
        .unwrap();
    assert_eq!(picked.dtype().descr(), "[('ok', '|b1'), ('i', '<i2')]");
    let missing = ParquetOptions::new()
        .columns(["nope"])
        .parquet_to_dyn(dir.path("t_none.parquet"));
    assert_eq!(missing.unwrap_err().kind(), ErrorKind::Usage);
}

#[test]
fn round_trips_write_back_what_np_save_wrote() {
    let dir = Scratch::new("pq-round");
    numpy(
        &dir.0,
        "np.save(d + '/a.npy', np.arange(24, dtype=np.float32).reshape(2, 3, 4))
np.save(d + '/r.npy', np.array([(1, b'ab', 'xyz', 1+1j)], [('a', '<u4'), ('b', 'S2'), ('c', '<U3'), ('z', '<c8')]))
np.save(d + '/m.npy', np.array(['2001-01-01T00:00:00.000000001', 'NaT'], 'M8[ns]'))
np.save(d + '/e.npy', np.zeros((0, 5), np.int8))",
    );
    for name in ["a", "r", "m", "e"] {
        for tensor in [false, true] {
            let pq = dir.path(&format!("{name}.parquet"));
            ParquetOptions::new()
                .tensor_extension(tensor)
                .npy_to_parquet(dir.path(&format!("{name}.npy")), &pq)
                .unwrap();
            parquet_to_npy(&pq, dir.path("back.npy")).unwrap();
            assert_eq!(
                dir.read("back.npy"),
                dir.read(&format!("{name}.npy")),
                "{name} tensor={tensor}"
            );
        }
    }
    // pyarrow sees the canonical tensor type.
    ParquetOptions::new()
        .tensor_extension(true)
        .npy_to_parquet(dir.path("a.npy"), dir.path("t.parquet"))
        .unwrap();
    let out = numpy(
        &dir.0,
        "import pyarrow.parquet as pq
c = pq.read_table(d + '/t.parquet').column('values')
print(c.type)
print(c.chunk(0).to_numpy_ndarray().shape)",
    );
    assert_eq!(
        out,
        "extension<arrow.fixed_shape_tensor[value_type=float, shape=[3,4]]>\n(2, 3, 4)"
    );
}

#[test]
fn npz_members_become_columns_or_files() {
    let dir = Scratch::new("pq-npz");
    numpy(
        &dir.0,
        "np.savez(d + '/same.npz', ids=np.arange(5), emb=np.ones((5, 3), np.float32), name=np.array(list('abcde')))
np.savez_compressed(d + '/ragged.npz', a=np.arange(3), b=np.arange(4.0))",
    );
    npz_to_parquet(dir.path("same.npz"), dir.path("same.parquet")).unwrap();
    let out = numpy(
        &dir.0,
        "import pyarrow.parquet as pq
t = pq.read_table(d + '/same.parquet')
print(t.column_names, t.num_rows, t.column('name').to_pylist())",
    );
    assert_eq!(out, "['ids', 'emb', 'name'] 5 ['a', 'b', 'c', 'd', 'e']");

    let err = npz_to_parquet(dir.path("ragged.npz"), dir.path("ragged.parquet")).unwrap_err();
    assert_eq!(err.fault(), Some(Fault::Conversion), "{err}");
    assert!(!dir.path("ragged.parquet").exists());
    ParquetOptions::new()
        .per_member(true)
        .npz_to_parquet(dir.path("ragged.npz"), dir.path("ragged"))
        .unwrap();
    let b = parquet_to_dyn(dir.path("ragged/b.parquet")).unwrap();
    assert_eq!(
        b.into_array::<f64>().unwrap().as_slice().unwrap(),
        [0.0, 1.0, 2.0, 3.0]
    );

    // Keys with slashes become subdirectories; a key that would leave the directory, or a
    // member that cannot convert, fails the whole conversion, and no file is left.
    numpy(
        &dir.0,
        "import zipfile
np.savez(d + '/nested.npz', **{'layers/0/w': np.ones(2), 'layers/1/w': np.zeros(3)})
np.savez(d + '/late_bad.npz', a=np.ones(2), b=np.ones(2, np.longdouble))
buf = io.BytesIO()
np.save(buf, np.ones(2))
with zipfile.ZipFile(d + '/evil.npz', 'w') as z:
    z.writestr('ok.npy', buf.getvalue())
    z.writestr('../escape.npy', buf.getvalue())",
    );
    ParquetOptions::new()
        .per_member(true)
        .npz_to_parquet(dir.path("nested.npz"), dir.path("nested"))
        .unwrap();
    assert!(dir.path("nested/layers/1/w.parquet").exists());
    for (input, out) in [("late_bad.npz", "late"), ("evil.npz", "evil")] {
        let err = ParquetOptions::new()
            .per_member(true)
            .npz_to_parquet(dir.path(input), dir.path(out))
            .unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::DType | ErrorKind::Usage),
            "{input}: {err}"
        );
        let left: Vec<_> = std::fs::read_dir(dir.path(out)).unwrap().collect();
        assert!(left.is_empty(), "{input}: {left:?}");
    }
    assert!(!dir.path("escape.parquet").exists());
}

#[test]
fn bad_input_is_a_clear_error_and_leaves_no_output() {
    let dir = Scratch::new("pq-bad");
    numpy(
        &dir.0,
        "np.save(d + '/ok.npy', np.arange(1000.0))
np.save(d + '/obj.npy', np.array([1, 'a'], dtype=object), allow_pickle=True)
np.save(d + '/ld.npy', np.ones(3, np.longdouble))
b = open(d + '/ok.npy', 'rb').read()
open(d + '/short.npy', 'wb').write(b[:len(b) - 100])",
    );
    // A header asking for 10^15 elements of no bytes: refused before anything is allocated.
    let header = ndnpy::Header {
        dtype: ndnpy::DType::from_descr("'|V0'").unwrap(),
        fortran_order: true,
        shape: vec![1_000_000, 1_000_000_000],
    };
    std::fs::write(dir.path("v0.npy"), header.to_bytes().unwrap()).unwrap();
    for (input, kind) in [
        ("v0.npy", ErrorKind::DType),
        ("short.npy", ErrorKind::Truncated),
        ("obj.npy", ErrorKind::DType),
        ("ld.npy", ErrorKind::DType),
    ] {
        let err = npy_to_parquet(dir.path(input), dir.path("out.parquet")).unwrap_err();
        assert_eq!(err.kind(), kind, "{input}: {err}");
        assert!(!dir.path("out.parquet").exists(), "{input}");
    }
    let err = ParquetOptions::new()
        .compression("zip")
        .npy_to_parquet(dir.path("ok.npy"), dir.path("out.parquet"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage);

    // A Parquet file cut short, and one with a byte changed in its footer.
    npy_to_parquet(dir.path("ok.npy"), dir.path("ok.parquet")).unwrap();
    let good = dir.read("ok.parquet");
    std::fs::write(dir.path("cut.parquet"), &good[..good.len() / 2]).unwrap();
    let mut flipped = good.clone();
    let at = flipped.len() - 20;
    flipped[at] ^= 0xff;
    std::fs::write(dir.path("flip.parquet"), &flipped).unwrap();
    std::fs::write(dir.path("npy.parquet"), dir.read("ok.npy")).unwrap();
    for input in ["cut.parquet", "flip.parquet", "npy.parquet"] {
        let result = parquet_to_npy(dir.path(input), dir.path("out.npy"));
        if let Err(e) = &result {
            assert!(!dir.path("out.npy").exists(), "{input}: {e}");
        } else {
            // A changed byte the format cannot notice (in a statistic) may still read.
            assert_eq!(input, "flip.parquet");
            std::fs::remove_file(dir.path("out.npy")).unwrap();
        }
    }
    assert_eq!(
        parquet_to_npy(dir.path("cut.parquet"), dir.path("out.npy"))
            .unwrap_err()
            .kind(),
        ErrorKind::Header
    );
}

/// Arrays of 64-128 MiB stream into Parquet in row groups of 4 MiB: resident memory rises by a
/// few row groups, not by the array (the peak is measured in a child process): a float16
/// array (the column writer's path: under 32 MiB), a float32 one and records (the Arrow
/// writer's, which keeps more per row group: under 40 MiB).
#[cfg(target_os = "linux")]
#[test]
fn npy_to_parquet_streams_in_bounded_memory() {
    use crate::common::{child_case, child_peak_rss, run_child_case};
    const TEST: &str = "npy_to_parquet_streams_in_bounded_memory";
    let dir = std::env::temp_dir().join("ndnpy-test-pq-stream-shared");
    if let Some(case) = child_case() {
        return run_child_case(|| {
            let (dir, name) = case.rsplit_once('|').unwrap();
            let dir = std::path::PathBuf::from(dir);
            ParquetOptions::new()
                .row_group_bytes(4 << 20)
                .npy_to_parquet(
                    dir.join(format!("{name}.npy")),
                    dir.join(format!("{name}.parquet")),
                )
                .unwrap();
        });
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let big = ndarray::Array2::<half::f16>::from_shape_fn((43_690, 768), |(i, j)| {
        half::f16::from_f32(((i * 768 + j) % 2048) as f32)
    });
    ndnpy::write_npy(dir.join("big.npy"), &big).unwrap();
    numpy(
        &dir,
        "np.save(d + '/f32.npy', (np.arange(43690 * 768) % 4099).astype(np.float32).reshape(43690, 768))
r = np.zeros(1 << 21, [('id', '<i8'), ('x', '<f4', (8,)), ('s', 'S12')])
r['id'] = np.arange(1 << 21)
np.save(d + '/rec.npy', r)",
    );
    let mut peaks = Vec::new();
    for name in ["big", "f32", "rec"] {
        let case = format!("{}|{name}", dir.display());
        peaks.push((name, child_peak_rss(module_path!(), TEST, &case, None)));
    }
    let out = numpy(
        &dir,
        "import pyarrow.parquet as pq
for n in ['big', 'f32', 'rec']:
    f = pq.ParquetFile(d + '/' + n + '.parquet')
    print(f.metadata.num_rows, f.metadata.num_row_groups)",
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out, "43690 17\n43690 33\n2097152 27");
    for (name, peak) in peaks {
        let bound = if name == "big" { 32 << 20 } else { 40 << 20 };
        assert!(
            peak.rise() < bound,
            "{name}: a 64-128 MiB array in 4 MiB row groups raised resident memory by {} bytes",
            peak.rise()
        );
    }
}

/// Reads `rounds` damaged copies of the Parquet file `name` (one in ten cut short, the others
/// with one to four bits flipped, where a xorshift seeded with `seed` says) through `read`;
/// panics if a read panics, else returns how many were errors and how many read.
fn read_damaged_copies<T>(
    dir: &Scratch,
    name: &str,
    seed: u64,
    rounds: usize,
    read: impl Fn(&std::path::Path) -> Result<T, ndnpy::Error>,
) -> (usize, usize) {
    let good = dir.read(name);
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut errors, mut read_ok) = (0, 0);
    let path = dir.path("bad.parquet");
    for round in 0..rounds {
        let mut bad = good.clone();
        if round % 10 == 0 {
            bad.truncate((next() as usize) % bad.len());
        } else {
            for _ in 0..1 + round % 4 {
                let at = (next() as usize) % bad.len();
                bad[at] ^= 1 << (next() % 8);
            }
        }
        std::fs::write(&path, &bad).unwrap();
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read(&path))) {
            Ok(Ok(_)) => read_ok += 1,
            Ok(Err(_)) => errors += 1,
            Err(_) => panic!("{name}, round {round}: reading a damaged file panicked"),
        }
    }
    (errors, read_ok)
}

/// Damaged Parquet files (bytes flipped, cut short) are errors, never a panic: 400 mutations of
/// a file with numbers, strings, lists and nulls, each read to `.npy` in memory.
#[test]
fn damaged_parquet_files_are_errors_not_panics() {
    let dir = Scratch::new("pq-damaged");
    numpy(
        &dir.0,
        "import pyarrow as pa, pyarrow.parquet as pq
t = pa.table({'i': pa.array(range(200), pa.int32()), 's': pa.array([str(i) * (i % 5) for i in range(200)]),
              'e': pa.array([[float(i), 1.0] for i in range(200)], pa.list_(pa.float32(), 2)),
              'f': pa.array([None if i % 7 == 0 else i / 3 for i in range(200)])})
pq.write_table(t, d + '/t.parquet', compression='snappy', row_group_size=64)",
    );
    let (errors, read) = read_damaged_copies(&dir, "t.parquet", 0x9e37_79b9_7f4a_7c15, 400, |p| {
        ParquetOptions::new().fill_nulls(0.0).parquet_to_dyn(p)
    });
    assert!(errors > 100, "{errors} errors, {read} read");
}

/// float16 arrays take their own path to the column writer: big-endian, Fortran order, more
/// axes (nested lists or the tensor type), one axis, no rows and 0-d all read back by pyarrow
/// as numpy holds them, and back to `.npy` equal.
#[test]
fn float16_arrays_of_every_layout_go_through_the_column_writer() {
    let dir = Scratch::new("pq-f16");
    numpy(
        &dir.0,
        "np.save(d + '/be.npy', np.arange(24, dtype='>f2').reshape(4, 6))
np.save(d + '/f.npy', np.asfortranarray(np.arange(24, dtype='<f2').reshape(4, 6)))
np.save(d + '/f3.npy', np.asfortranarray(np.arange(60, dtype='<f2').reshape(3, 4, 5)))
np.save(d + '/one.npy', np.arange(5, dtype='<f2'))
np.save(d + '/zero.npy', np.zeros((0, 8), '<f2'))
np.save(d + '/scalar.npy', np.array(1.5, '<f2'))",
    );
    let cases = ["be", "f", "f3", "one", "zero", "scalar"];
    for name in cases {
        for tensor in [false, true] {
            let pq = dir.path(&format!("{name}{}.parquet", if tensor { "_t" } else { "" }));
            ParquetOptions::new()
                .tensor_extension(tensor)
                .row_group_rows(3)
                .npy_to_parquet(dir.path(&format!("{name}.npy")), &pq)
                .unwrap();
            parquet_to_npy(&pq, dir.path(&format!("{name}.back.npy"))).unwrap();
        }
    }
    let out = numpy(
        &dir.0,
        "import pyarrow.parquet as pq
for f in ['be', 'f', 'f3', 'one', 'zero', 'scalar']:
    a = np.load(d + '/' + f + '.npy')
    a = a.reshape(1) if a.ndim == 0 else a
    b = np.load(d + '/' + f + '.back.npy')
    assert b.dtype == np.float16 and np.array_equal(a, b), f
    t = pq.read_table(d + '/' + f + '.parquet').column('values')
    got = np.array(t.to_pylist(), np.float16).reshape(a.shape)
    assert np.array_equal(got, a), f
    e = pq.read_table(d + '/' + f + '_t.parquet').column('values')
    if a.ndim > 1:
        assert np.array_equal(e.chunk(0).to_numpy_ndarray() if len(e.chunks) == 1 else np.concatenate([c.to_numpy_ndarray() for c in e.chunks]), a), f
print(str(pq.read_table(d + '/f3.parquet').schema.field(0).type))",
    );
    assert_eq!(
        out,
        "fixed_size_list<item: fixed_size_list<item: halffloat>[5]>[4]"
    );
}

/// Columns of numbers as pyarrow writes them (float16 in dictionary pages, plain pages,
/// version 2 pages, nested lists, one axis; float32 and int64) become the `.npy` numpy would
/// save, through both doors; a column with nulls is refused without a fill value and filled
/// with one, as other columns are; and damaged copies of such a file are errors, never a
/// panic.
#[test]
fn number_columns_from_pyarrow_read_as_numpy_holds_them() {
    let dir = Scratch::new("pq-f16-in");
    numpy(
        &dir.0,
        "import pyarrow as pa, pyarrow.parquet as pq
a = np.random.default_rng(2).standard_normal((500, 16)).astype(np.float16)
a[1, 1], a[2] = np.nan, -np.inf
np.save(d + '/a.npy', a)
np.save(d + '/b.npy', a.reshape(500, 4, 4))
lists = pa.FixedSizeListArray.from_arrays(pa.array(a.reshape(-1)), 16)
nested = pa.FixedSizeListArray.from_arrays(pa.FixedSizeListArray.from_arrays(pa.array(a.reshape(-1)), 4), 4)
pq.write_table(pa.table({'values': lists}), d + '/dict.parquet', compression='snappy', row_group_size=128)
pq.write_table(pa.table({'values': lists}), d + '/plain.parquet', use_dictionary=False)
pq.write_table(pa.table({'values': lists}), d + '/v2.parquet', data_page_version='2.0')
pq.write_table(pa.table({'values': nested}), d + '/nested.parquet')
pq.write_table(pa.table({'x': pa.array(a[:, 0], mask=np.arange(500) >= 450)}), d + '/nulls.parquet', row_group_size=100)
pq.write_table(pa.table({'values': lists}), d + '/damage.parquet', data_page_size=1024, row_group_size=100)
f4 = a.astype('<f4')
np.save(d + '/f4.npy', f4)
pq.write_table(pa.table({'values': pa.FixedSizeListArray.from_arrays(pa.array(f4.reshape(-1)), 16)}), d + '/f4.parquet', row_group_size=200)
i8 = np.arange(1000, dtype='<i8') * -3 + 2**40
np.save(d + '/i8.npy', i8)
pq.write_table(pa.table({'i8': pa.array(i8)}), d + '/i8.parquet', use_dictionary=False)",
    );
    // In memory: the same bits (NaN among them) in the same shape.
    let bits = |d: ndnpy::DynArray| d.into_array::<half::f16>().unwrap().mapv(|v| v.to_bits());
    for (file, want) in [("f4", "f4"), ("i8", "i8")] {
        parquet_to_npy(dir.path(&format!("{file}.parquet")), dir.path("out.npy")).unwrap();
        assert_eq!(
            dir.read("out.npy"),
            dir.read(&format!("{want}.npy")),
            "{file}"
        );
        let a = parquet_to_dyn(dir.path(&format!("{file}.parquet"))).unwrap();
        let b = ndnpy::read_npy_dyn(dir.path("out.npy")).unwrap();
        assert_eq!(format!("{a:?}"), format!("{b:?}"), "{file}");
    }
    for (file, want) in [("dict", "a"), ("plain", "a"), ("v2", "a"), ("nested", "b")] {
        let out = dir.path(&format!("{file}.npy"));
        parquet_to_npy(dir.path(&format!("{file}.parquet")), &out).unwrap();
        assert_eq!(
            dir.read(&format!("{file}.npy")),
            dir.read(&format!("{want}.npy")),
            "{file}: not the bytes np.save writes"
        );
        let a = parquet_to_dyn(dir.path(&format!("{file}.parquet"))).unwrap();
        assert_eq!(bits(a), bits(ndnpy::read_npy_dyn(&out).unwrap()), "{file}");
    }
    // Its nulls are in the last row group: the rows before them were copied page by page,
    // then the file is read the Arrow reader's way from the start.
    let err = parquet_to_npy(dir.path("nulls.parquet"), dir.path("nulls.npy")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage, "{err}");
    assert!(!dir.path("nulls.npy").exists());
    ParquetOptions::new()
        .fill_nulls(f64::NAN)
        .parquet_to_npy(dir.path("nulls.parquet"), dir.path("nulls.npy"))
        .unwrap();
    let out = numpy(
        &dir.0,
        "a = np.load(d + '/a.npy')[:, 0].copy(); a[450:] = np.nan
b = np.load(d + '/nulls.npy')
print(b.dtype, np.array_equal(a, b, equal_nan=True))",
    );
    assert_eq!(out, "float16 True");
    let filled = ParquetOptions::new()
        .fill_nulls(f64::NAN)
        .parquet_to_dyn(dir.path("nulls.parquet"))
        .unwrap();
    let saved = ndnpy::read_npy_dyn(dir.path("nulls.npy")).unwrap();
    assert_eq!(bits(filled), bits(saved));

    let (errors, read) =
        read_damaged_copies(&dir, "damage.parquet", 0x2545_f491_4f6c_dd1d, 300, |p| {
            ParquetOptions::new().parquet_to_dyn(p)
        });
    assert!(errors > 50, "{errors} errors, {read} read");
}

/// A valid Parquet column of `arrow.fixed_shape_tensor` elements of 65 dimensions (66 with the
/// rows) converts to no `.npy`: numpy arrays have at most 64, so the file holds what numpy
/// cannot (`ErrorKind::DType`, as any type without a numpy equivalent), and nothing is left at
/// the path.
#[test]
fn tensor_columns_of_more_than_64_dimensions_are_refused() {
    let dir = Scratch::new("pq-66d");
    numpy(
        &dir.0,
        "import pyarrow as pa, pyarrow.parquet as pq
t = pa.fixed_shape_tensor(pa.int32(), [1] * 65)
a = pa.ExtensionArray.from_storage(t, pa.array([[7]], pa.list_(pa.int32(), 1)))
pq.write_table(pa.table({'t': a}), d + '/t65.parquet')",
    );
    let out = dir.path("t65.npy");
    let err = parquet_to_npy(dir.path("t65.parquet"), &out).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DType, "{err}");
    assert_eq!(err.fault(), Some(Fault::NoEquivalent), "{err}");
    assert!(err.to_string().contains("66 dimensions"), "{err}");
    assert!(!out.exists());
}

/// pyarrow's `FixedShapeTensorArray.from_numpy_ndarray` writes an explicit `permutation`: the
/// identity for a C-ordered array, which reads as that array; another for a transposed one,
/// which is refused naming the permutation. Metadata with no shape, a shape that does not
/// hold the list, or a permutation of other axes is refused too.
#[test]
fn tensor_permutations_read_when_the_identity_and_are_refused_by_name_otherwise() {
    let dir = Scratch::new("pq-perm");
    numpy(
        &dir.0,
        "import pyarrow as pa, pyarrow.parquet as pq, json
a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
c = pa.FixedShapeTensorArray.from_numpy_ndarray(a)
assert c.type.permutation == [0, 1]
pq.write_table(pa.table({'t': c}), d + '/ident.parquet')
np.save(d + '/ident.npy', c.to_numpy_ndarray())
t = pa.FixedShapeTensorArray.from_numpy_ndarray(a.transpose(0, 2, 1))
assert t.type.permutation == [1, 0]
pq.write_table(pa.table({'t': t}), d + '/perm.parquet')
s = pa.FixedSizeListArray.from_arrays(pa.array(np.arange(12, dtype=np.int16)), 6)
for name, meta in [('names', '{\"dim_names\": [\"shape\", \"x\"], \"shape\" : [2, 3], \"permutation\": [0, 1]}'),
                   ('noshape', '{\"dim_names\": [\"shape\"]}'), ('size', '{\"shape\": [2, 2]}'),
                   ('badperm', '{\"shape\": [2, 3], \"permutation\": [0, 0]}'), ('junk', '{\"shape\": [2, 3]')]:
    f = pa.field('t', s.type, metadata={'ARROW:extension:name': 'arrow.fixed_shape_tensor',
                                        'ARROW:extension:metadata': meta})
    pq.write_table(pa.table([s], schema=pa.schema([f])), d + '/' + name + '.parquet')",
    );
    let out = dir.path("out.npy");
    parquet_to_npy(dir.path("ident.parquet"), &out).unwrap();
    assert_eq!(dir.read("out.npy"), dir.read("ident.npy"));
    // dim_names (one of them "shape") are passed over.
    parquet_to_npy(dir.path("names.parquet"), &out).unwrap();
    let a: ndarray::Array3<i16> = ndnpy::read_npy(&out).unwrap();
    assert_eq!(a.shape(), &[2, 2, 3]);
    assert_eq!(a[[1, 1, 2]], 11);
    std::fs::remove_file(&out).unwrap();
    for (file, says) in [
        (
            "perm",
            "its permutation [1, 0] reorders the stored axes [3, 4]",
        ),
        ("noshape", "not the extension's JSON object with a shape"),
        ("size", "its shape [2, 2] does not hold the list size, 6"),
        (
            "badperm",
            "its permutation [0, 0] is not one of the shape's 2 axes",
        ),
        ("junk", "not the extension's JSON object with a shape"),
    ] {
        let err = parquet_to_npy(dir.path(&format!("{file}.parquet")), &out).unwrap_err();
        assert_eq!(err.fault(), Some(Fault::NoEquivalent), "{file}: {err}");
        assert!(err.to_string().contains(says), "{file}: {err}");
        assert!(!out.exists(), "{file}");
    }
}

/// A page whose compressed bytes are damaged is an invalid file (the codec's error names
/// it), not an I/O error: zstd's "Data corruption detected", gzip's "corrupt deflate stream".
/// The file reads as it is before it is damaged; damaged copies that read at all (a flipped
/// bit in a value: Parquet pages here carry no checksum) are not counted.
#[test]
fn damaged_compressed_pages_are_invalid_files_not_io_errors() {
    let dir = Scratch::new("pq-codec-damage");
    let layout = numpy(
        &dir.0,
        "import pyarrow as pa, pyarrow.parquet as pq
x = np.random.default_rng(0).integers(0, 1000, 200000)
for codec in ['zstd', 'lz4', 'gzip', 'snappy']:
    pq.write_table(pa.table({'x': x}), d + '/' + codec + '.parquet', compression=codec,
                   use_dictionary=False, data_page_size=1 << 16)
    col = pq.read_metadata(d + '/' + codec + '.parquet').row_group(0).column(0)
    print(codec, col.data_page_offset, col.total_compressed_size)",
    );
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut io_errors = Vec::new();
    let mut invalid = 0;
    for line in layout.lines() {
        let mut parts = line.split(' ');
        let codec = parts.next().unwrap();
        let offset: usize = parts.next().unwrap().parse().unwrap();
        let size: usize = parts.next().unwrap().parse().unwrap();
        let good = dir.read(&format!("{codec}.parquet"));
        parquet_to_dyn(dir.path(&format!("{codec}.parquet"))).unwrap();
        for round in 0..30 {
            let mut bad = good.clone();
            let at = offset + 30 + next(size - 40);
            for b in &mut bad[at..(at + [1, 8, 64][round % 3]).min(offset + size)] {
                *b ^= 1 + next(255) as u8;
            }
            std::fs::write(dir.path("bad.parquet"), &bad).unwrap();
            match parquet_to_dyn(dir.path("bad.parquet")) {
                Err(e) if e.kind() == ErrorKind::Io => io_errors.push(format!("{codec}: {e}")),
                Err(e) => {
                    assert!(e.kind().is_format(), "{codec}: {e}");
                    invalid += 1;
                }
                Ok(_) => {}
            }
        }
    }
    assert!(io_errors.is_empty(), "{io_errors:#?}");
    assert!(invalid > 40, "{invalid} invalid");
}

/// A Parquet footer in Thrift's compact protocol: a root with `children` children, one
/// `INT32` leaf, no rows, and a row-group list that claims `row_groups` entries (holding none).
fn parquet_with_footer(children: i64, row_groups: u8) -> Vec<u8> {
    let zigzag = |v: i64| ((v << 1) ^ (v >> 63)) as u64;
    let mut m = Vec::new();
    let varint = |m: &mut Vec<u8>, mut v: u64| {
        while v >= 0x80 {
            m.push(v as u8 | 0x80);
            v >>= 7;
        }
        m.push(v as u8);
    };
    m.push(0x15); // field 1 (version), i32
    varint(&mut m, zigzag(1));
    m.extend([0x19, 0x2c]); // field 2 (schema): a list of 2 structs
    m.extend([0x48, 6]); // root: field 4 (name), binary
    m.extend(b"schema");
    m.push(0x15); // field 5 (num_children), i32
    varint(&mut m, zigzag(children));
    m.push(0);
    m.push(0x15); // leaf: field 1 (type) INT32, field 3 (repetition) REQUIRED, field 4 (name)
    varint(&mut m, zigzag(1));
    m.push(0x25);
    varint(&mut m, zigzag(0));
    m.extend([0x18, 1, b'a', 0]);
    m.push(0x16); // field 3 (num_rows), i64
    varint(&mut m, 0);
    m.extend([0x19, 0xfc]); // field 4 (row_groups): a list of structs, its length next
    varint(&mut m, u64::from(row_groups) << 24);
    m.push(0);
    let mut file = b"PAR1".to_vec();
    file.extend(&m);
    file.extend((m.len() as u32).to_le_bytes());
    file.extend(b"PAR1");
    file
}

/// A footer whose counts its bytes cannot back (a schema root claiming 2**31-1 children, a
/// row-group list claiming 2**24 entries) made the parquet crate reserve gigabytes before it
/// looked further, and a failed allocation aborts; such files are refused with an error. Run in
/// a child whose address space is limited to 1 GiB more than it holds, as `ulimit -v` would.
#[cfg(target_os = "linux")]
#[test]
fn footers_claiming_more_than_their_bytes_are_refused_before_allocating() {
    if let Some(case) = crate::common::child_case() {
        return crate::common::run_child_case(|| {
            let (children, row_groups) = match case.as_str() {
                "sane" => (1, 0),
                "children" => (i64::from(i32::MAX), 0),
                "negative" => (-1, 0),
                _ => (1, 1),
            };
            let dir = Scratch::new(&format!("pq-footer-{case}"));
            let path = dir.path("f.parquet");
            std::fs::write(&path, parquet_with_footer(children, row_groups)).unwrap();
            let result = parquet_to_dyn(&path);
            crate::common::child_say(&match result {
                Ok(a) => format!("ok {:?}", a.shape()),
                Err(e) => format!("{:?}", e.kind()),
            });
        });
    }
    let name = "footers_claiming_more_than_their_bytes_are_refused_before_allocating";
    for case in ["sane", "children", "negative", "row_groups"] {
        let peak = crate::common::child_peak_rss(module_path!(), name, case, Some(1 << 30));
        let want = if case == "sane" { "ok [0]" } else { "Header" };
        assert_eq!(peak.said, [want], "{case}");
    }
}

/// This module's error texts (see `messages`).
pub(crate) fn messages() -> Vec<crate::messages::Message> {
    use crate::messages::Message;
    let dir = Scratch::new("pq-messages");
    numpy(
        &dir.0,
        "import pyarrow as pa, pyarrow.parquet as pq
pq.write_table(pa.table({'x': [1.0]}), d + '/b.parquet', compression='brotli')",
    );
    let err = parquet_to_npy(dir.path("b.parquet"), dir.path("b.npy")).unwrap_err();
    let lower = err.to_string().to_lowercase();
    vec![Message::has("a codec the build lacks", lower, &["brotli"])]
}

/// The library leaves the host's panic hook alone: a panic of the parquet crate's reader on a
/// damaged file, which the conversion turns into an error, reaches the hook the host set
/// (damaged copies of a file are read until one meets such a panic).
#[test]
fn a_reader_panic_reaches_the_hosts_panic_hook() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let dir = Scratch::new("pq-hook");
    numpy(
        &dir.0,
        "import pyarrow as pa, pyarrow.parquet as pq
t = pa.table({'i': pa.array(range(200), pa.int32()), 's': pa.array([str(i) * (i % 5) for i in range(200)])})
pq.write_table(t, d + '/t.parquet', compression='snappy', row_group_size=64)",
    );
    let me = std::thread::current().id();
    let seen = Arc::new(AtomicUsize::new(0));
    let previous = Arc::new(std::panic::take_hook());
    {
        let (seen, previous) = (seen.clone(), previous.clone());
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().id() == me {
                seen.fetch_add(1, Ordering::SeqCst);
            } else {
                previous(info);
            }
        }));
    }
    let good = dir.read("t.parquet");
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut guarded = 0;
    for round in 0..600 {
        let mut bad = good.clone();
        for _ in 0..1 + round % 4 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let at = (state as usize) % bad.len();
            bad[at] ^= 1 << (state % 8);
        }
        std::fs::write(dir.path("bad.parquet"), &bad).unwrap();
        if let Err(e) = parquet_to_dyn(dir.path("bad.parquet")) {
            if e.to_string().contains("the Parquet reader failed on it") {
                guarded += 1;
                break;
            }
        }
    }
    let _ = std::panic::take_hook();
    let previous = Arc::try_unwrap(previous).ok();
    if let Some(previous) = previous {
        std::panic::set_hook(previous);
    }
    assert!(guarded > 0, "no damaged copy met a reader panic");
    assert!(
        seen.load(Ordering::SeqCst) > 0,
        "the host's hook did not see the panic"
    );
}

/// What the Parquet fuzz target met (`testdata/fuzz_parquet/`): files on which the parquet
/// crate's reader panics (here in arrow-ipc's schema conversion) are errors of the file, and
/// no panic leaves the conversion, whatever the host's panic hook does.
#[test]
fn fuzz_findings_of_the_parquet_reader_are_errors() {
    for entry in std::fs::read_dir("testdata/fuzz_parquet").unwrap() {
        let path = entry.unwrap().path();
        let err = parquet_to_dyn(&path).unwrap_err();
        assert!(err.kind().is_format(), "{path:?}: {err}");
        let out = std::env::temp_dir().join(format!("ndnpy-fuzz-pq-{}.npy", std::process::id()));
        let err = parquet_to_npy(&path, &out).unwrap_err();
        assert!(err.kind().is_format(), "{path:?}: {err}");
        assert!(!out.exists());
    }
}
