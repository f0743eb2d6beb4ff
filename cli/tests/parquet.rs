//! `ndnpy convert` to and from `.parquet`: pyarrow reads what we write, we read what pyarrow
//! writes; refusals and bad input leave no output.

mod common;
use common::{ndnpy, ok, out_dir, s};
use std::path::Path;

/// Runs python `code` with numpy as `np`, pyarrow as `pa`, pyarrow.parquet as `pq` and `d`
/// the directory (ending in `/`); its output.
fn py(dir: &Path, code: &str) -> String {
    common::py_in(
        dir,
        "import numpy as np, pyarrow as pa, pyarrow.parquet as pq",
        code,
    )
}

#[test]
fn converts_npy_npz_and_parquet_both_ways() {
    let dir = out_dir("pq-both");
    py(
        &dir,
        "np.save(d + 'emb.npy', np.arange(40, dtype=np.float16).reshape(10, 4))\n\
         np.save(d + 'rec.npy', np.array([(1, 'a'), (2, 'bc')], [('id', '<i4'), ('s', '<U2')]))\n\
         np.savez(d + 'same.npz', x=np.arange(3), y=np.ones(3))\n\
         np.savez(d + 'ragged.npz', x=np.arange(3), y=np.ones(4))\n\
         pq.write_table(pa.table({'a': [1, None], 'b': ['x', 'y']}), d + 'py.parquet')",
    );
    ok(&[
        "convert",
        &s(dir.join("emb.npy")),
        &s(dir.join("emb.parquet")),
        "--compression",
        "zstd",
        "--row-group-size",
        "4",
    ]);
    let out = py(
        &dir,
        "f = pq.ParquetFile(d + 'emb.parquet')\n\
         t = f.read()\n\
         np.testing.assert_array_equal(np.stack(t.column('values').to_numpy()), np.load(d + 'emb.npy'))\n\
         print(f.metadata.num_row_groups, f.metadata.row_group(0).column(0).compression, t.schema.field('values').type)",
    );
    assert_eq!(out, "3 ZSTD fixed_size_list<item: halffloat>[4]");
    ok(&[
        "convert",
        &s(dir.join("emb.parquet")),
        &s(dir.join("emb2.npy")),
    ]);
    assert_eq!(
        std::fs::read(dir.join("emb2.npy")).unwrap(),
        std::fs::read(dir.join("emb.npy")).unwrap()
    );
    ok(&[
        "convert",
        &s(dir.join("rec.npy")),
        &s(dir.join("rec.parquet")),
    ]);
    ok(&[
        "convert",
        &s(dir.join("rec.parquet")),
        &s(dir.join("rec2.npy")),
    ]);
    assert_eq!(
        std::fs::read(dir.join("rec2.npy")).unwrap(),
        std::fs::read(dir.join("rec.npy")).unwrap()
    );
    ok(&[
        "convert",
        &s(dir.join("rec.parquet")),
        &s(dir.join("s.npy")),
        "--columns",
        "s",
    ]);
    let out = py(&dir, "print(np.load(d + 's.npy').tolist())");
    assert_eq!(out, "['a', 'bc']");

    ok(&[
        "convert",
        &s(dir.join("same.npz")),
        &s(dir.join("same.parquet")),
    ]);
    let out = py(
        &dir,
        "print(pq.read_table(d + 'same.parquet').column_names)",
    );
    assert_eq!(out, "['x', 'y']");
    let r = ndnpy(&[
        "convert",
        &s(dir.join("ragged.npz")),
        &s(dir.join("r.parquet")),
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("per member"), "{}", r.stderr);
    assert!(!dir.join("r.parquet").exists());
    ok(&[
        "convert",
        &s(dir.join("ragged.npz")),
        &s(dir.join("r")),
        "--per-member",
    ]);
    let out = py(&dir, "print(pq.read_table(d + 'r/y.parquet').num_rows)");
    assert_eq!(out, "4");

    // pyarrow's nulls: refused (exit 2) unless filled.
    let r = ndnpy(&[
        "convert",
        &s(dir.join("py.parquet")),
        &s(dir.join("py.npy")),
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--fill-nulls"), "{}", r.stderr);
    assert!(!dir.join("py.npy").exists());
    ok(&[
        "convert",
        &s(dir.join("py.parquet")),
        &s(dir.join("py.npy")),
        "--fill-nulls",
        "-1",
    ]);
    let out = py(
        &dir,
        "p = np.load(d + 'py.npy'); print(p['a'].tolist(), p['b'].tolist())",
    );
    assert_eq!(out, "[1, -1] ['x', 'y']");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn refusals_and_bad_input_leave_no_output() {
    let dir = out_dir("pq-bad");
    py(
        &dir,
        "np.save(d + 'ld.npy', np.ones(2, np.longdouble))\n\
         np.save(d + 'ok.npy', np.ones(5))",
    );
    let out = dir.join("out.parquet");
    // A dtype Arrow lacks: exit 5.
    let r = ndnpy(&["convert", &s(dir.join("ld.npy")), &s(out.clone())]);
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert!(!out.exists());
    // A foreign or truncated Parquet file: exit 4.
    std::fs::write(dir.join("text.parquet"), b"hello, world").unwrap();
    let r = ndnpy(&[
        "convert",
        &s(dir.join("text.parquet")),
        &s(dir.join("t.npy")),
    ]);
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert!(!dir.join("t.npy").exists());
    // Usage: options that do not apply, an unknown codec.
    for args in [
        &["--order", "F"][..],
        &["--compression", "zip"][..],
        &["--columns", "a"][..],
        &["--row-group-size", "0"][..],
    ] {
        let (a, b) = (s(dir.join("ok.npy")), s(out.clone()));
        let mut all = vec!["convert", &a, &b];
        all.extend_from_slice(args);
        let r = ndnpy(&all);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(!out.exists(), "{args:?}");
    }
    let r = ndnpy(&[
        "convert",
        &s(dir.join("ok.npy")),
        &s(dir.join("x.npz")),
        "--tensor",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A damaged Parquet file on which the parquet crate's reader panics is exit 4 with one line
/// of ndnpy's, and no panic message: damaged copies of a pyarrow file are converted until one
/// meets such a panic (the library turns it into an error).
#[test]
fn a_reader_panic_is_an_error_without_a_panic_message() {
    let dir = out_dir("pq-panic");
    py(
        &dir,
        "import pyarrow as pa, pyarrow.parquet as pq\n\
         t = pa.table({'i': pa.array(range(200), pa.int32()),\n\
         \x20             's': pa.array([str(i) * (i % 5) for i in range(200)])})\n\
         pq.write_table(t, d + 't.parquet', compression='snappy', row_group_size=64)",
    );
    let good = std::fs::read(dir.join("t.parquet")).unwrap();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut panics = 0;
    for round in 0..600 {
        let mut bad = good.clone();
        for _ in 0..1 + round % 4 {
            let at = (next() as usize) % bad.len();
            bad[at] ^= 1 << (next() % 8);
        }
        let input = dir.join("bad.parquet");
        std::fs::write(&input, &bad).unwrap();
        let r = ndnpy(&["convert", &s(input), &s(dir.join("bad.npy"))]);
        assert!(
            !r.stderr.contains("panicked at"),
            "round {round}: {}",
            r.stderr
        );
        if r.stderr.contains("the Parquet reader failed on it") {
            assert_eq!(r.code, 4, "round {round}: {}", r.stderr);
            assert_eq!(r.stderr.trim_end().lines().count(), 1, "{}", r.stderr);
            panics += 1;
            if panics == 3 {
                break;
            }
        }
    }
    assert!(panics > 0, "no damaged copy met a reader panic");
}

/// Every way `convert` refuses a Parquet conversion, against docs/cli.md's table of exit
/// statuses: 2 what the command line must change, 3 a file that cannot be opened, read or
/// written, 4 a file that is not valid, 5 a valid file the command cannot convert. A valid
/// tensor column of 65 axes is 5 (it was 2, "Try 'ndnpy --help'"); damaged zstd, lz4, gzip
/// and snappy pages are 4 (zstd's and gzip's were 3). No refusal leaves an output behind.
#[test]
fn every_refusal_exits_as_the_table_of_exit_statuses_says() {
    let dir = out_dir("pq-exits");
    py(
        &dir,
        "import json\n\
         np.save(d + 'ok.npy', np.ones(5))\n\
         np.save(d + 'ld.npy', np.ones(2, np.longdouble))\n\
         np.save(d + 'obj.npy', np.array([{'a': 1}], dtype=object), allow_pickle=True)\n\
         np.savez(d + 'lengths.npz', a=np.ones(3), b=np.ones(4))\n\
         open(d + 'cut.npy', 'wb').write(open(d + 'ok.npy', 'rb').read()[:-3])\n\
         pq.write_table(pa.table({'x': pa.array([1.0, None])}), d + 'nulls.parquet')\n\
         t = pa.fixed_shape_tensor(pa.int32(), [1] * 65)\n\
         a = pa.ExtensionArray.from_storage(t, pa.array([[7]], pa.list_(pa.int32(), 1)))\n\
         pq.write_table(pa.table({'t': a}), d + 't65.parquet')\n\
         p = pa.FixedShapeTensorArray.from_numpy_ndarray(np.ones((2, 3, 4), np.float32).transpose(0, 2, 1))\n\
         pq.write_table(pa.table({'t': p}), d + 'perm.parquet')\n\
         x = np.random.default_rng(0).integers(0, 1000, 100000)\n\
         for codec in ['zstd', 'lz4', 'gzip', 'snappy']:\n\
         \x20   pq.write_table(pa.table({'x': x}), d + codec + '.parquet', compression=codec,\n\
         \x20                  use_dictionary=False, data_page_size=1 << 16)\n\
         \x20   col = pq.read_metadata(d + codec + '.parquet').row_group(0).column(0)\n\
         \x20   good = open(d + codec + '.parquet', 'rb').read()\n\
         \x20   for at in [60, 100, 200, 400]:\n\
         \x20       b = bytearray(good)\n\
         \x20       for i in range(col.data_page_offset + at, col.data_page_offset + at + 64):\n\
         \x20           b[i] ^= 0x5a\n\
         \x20       open(d + f'{codec}_{at}.parquet', 'wb').write(b)",
    );
    let p = |name: &str| s(dir.join(name));
    let missing_dir = s(dir.join("no/such/dir/out.parquet"));
    let cases: Vec<(Vec<String>, i32)> = vec![
        // The command line.
        (
            vec![
                p("ok.npy"),
                p("o.parquet"),
                "--compression".into(),
                "zip".into(),
            ],
            2,
        ),
        (
            vec![
                p("nulls.parquet"),
                p("o.npy"),
                "--columns".into(),
                "y".into(),
            ],
            2,
        ),
        (vec![p("nulls.parquet"), p("o.npy")], 2),
        (vec![p("lengths.npz"), p("o.parquet")], 2),
        (
            vec![p("ok.npy"), p("o.parquet"), "--order".into(), "F".into()],
            2,
        ),
        // Files that cannot be opened or written.
        (vec![p("absent.parquet"), p("o.npy")], 3),
        (vec![p("absent.npy"), p("o.parquet")], 3),
        (vec![p("ok.npy"), missing_dir.clone()], 3),
        // Invalid files.
        (vec![p("cut.npy"), p("o.parquet")], 4),
        // Valid files the command cannot convert.
        (vec![p("ld.npy"), p("o.parquet")], 5),
        (vec![p("obj.npy"), p("o.parquet")], 5),
        (vec![p("t65.parquet"), p("o.npy")], 5),
        (vec![p("perm.parquet"), p("o.npy")], 5),
    ];
    for (args, code) in &cases {
        let mut all = vec!["convert"];
        all.extend(args.iter().map(String::as_str));
        let r = ndnpy(&all);
        assert_eq!(r.code, *code, "{all:?}: {}", r.stderr);
        if *code != 0 {
            assert!(
                !dir.join("o.npy").exists() && !dir.join("o.parquet").exists(),
                "{all:?}"
            );
            assert_eq!(
                r.code == 2,
                r.stderr.contains("--help"),
                "{all:?}: {}",
                r.stderr
            );
        }
    }
    // Damaged pages: an invalid file where the damage is seen (a flipped value may not be:
    // these pages carry no checksum), never an I/O error.
    for codec in ["zstd", "lz4", "gzip", "snappy"] {
        let mut invalid = 0;
        for at in [60, 100, 200, 400] {
            let r = ndnpy(&["convert", &p(&format!("{codec}_{at}.parquet")), &p("o.npy")]);
            assert!(r.code == 0 || r.code == 4, "{codec} at {at}: {}", r.stderr);
            invalid += usize::from(r.code == 4);
            let _ = std::fs::remove_file(dir.join("o.npy"));
        }
        assert!(invalid > 0, "{codec}: no damage was seen");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
