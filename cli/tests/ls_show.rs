//! `ndnpy ls` and `ndnpy show` against numpy's own dtype names, shapes and printing.

mod common;
use common::{fixtures, fx, ndnpy, numpy, ok};
use serde_json::Value;

#[test]
fn ls_json_matches_numpy_headers() {
    let files = [
        "f8.npy",
        "f4_be_f.npy",
        "rec.npy",
        "rec_padded.npy",
        "rec_mixed.npy",
        "rec_sub.npy",
        "rec_nan.npy",
        "f2.npy",
        "i2_be.npy",
        "ab.npz",
        "ab_z.npz",
        "dates.npy",
        "U.npy",
    ];
    let paths: Vec<String> = files.iter().map(|f| fx(f)).collect();
    let mut args = vec!["ls", "--json"];
    args.extend(paths.iter().map(String::as_str));
    let got: Value = serde_json::from_str(&ok(&args)).unwrap();
    // numpy's view of the same: str(dtype), shape, order, nbytes, per array.
    let expected: Value = serde_json::from_str(&numpy(&format!(
        r#"
import zipfile, os
out = []
for f in {files:?}:
    p = D + f
    if f.endswith('.npz'):
        z = zipfile.ZipFile(p)
        arrays = []
        with np.load(p) as npz:
            for info, key in zip(z.infolist(), npz.files):
                a = npz[key]
                arrays.append(dict(name=key, dtype=str(a.dtype), shape=list(a.shape),
                    order='F' if (a.flags.f_contiguous and not a.flags.c_contiguous) else 'C',
                    memory_bytes=a.nbytes, disk_bytes=info.compress_size,
                    compression='deflated' if info.compress_type == 8 else 'stored'))
        out.append(dict(file=p, kind='npz', arrays=arrays))
    else:
        a = np.load(p)
        out.append(dict(file=p, kind='npy', arrays=[dict(name=p, dtype=str(a.dtype),
            shape=list(a.shape),
            order='F' if (a.flags.f_contiguous and not a.flags.c_contiguous) else 'C',
            memory_bytes=a.nbytes, disk_bytes=os.path.getsize(p), compression='none')]))
print(json.dumps(out))
"#
    )))
    .unwrap();
    let got = got.as_array().unwrap();
    let expected = expected.as_array().unwrap();
    assert_eq!(got.len(), expected.len());
    for (g, e) in got.iter().zip(expected) {
        assert_eq!(g["file"], e["file"]);
        assert_eq!(g["kind"], e["kind"]);
        let (ga, ea) = (
            g["arrays"].as_array().unwrap(),
            e["arrays"].as_array().unwrap(),
        );
        assert_eq!(ga.len(), ea.len(), "{}", g["file"]);
        for (ga, ea) in ga.iter().zip(ea) {
            for key in [
                "name",
                "dtype",
                "shape",
                "order",
                "memory_bytes",
                "disk_bytes",
                "compression",
            ] {
                assert_eq!(ga[key], ea[key], "{} {key}", g["file"]);
            }
        }
    }
}

#[test]
fn ls_prints_a_table_per_file() {
    let out = ok(&["ls", &fx("ab.npz"), &fx("f4_be_f.npy")]);
    let expected = format!(
        "{}: .npz archive, 3 members
  name   dtype    shape   order  on disk  in memory  compression
  a      int64    (5,)    C        168 B       40 B  stored
  b      float64  (3, 3)  C        200 B       72 B  stored
  label  <U1      (2,)    C        136 B        8 B  stored

{}: .npy file
  name         dtype  shape   order  on disk  in memory  compression
  f4_be_f.npy  >f4    (3, 4)  F        176 B       48 B  none
",
        fx("ab.npz"),
        fx("f4_be_f.npy")
    );
    assert_eq!(out, expected);
}

#[test]
fn ls_names_members_that_are_not_arrays_and_damaged_ones() {
    let r = ndnpy(&["ls", &fx("nope.npz")]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(
        r.stderr.contains("nope.npz") && r.stderr.contains("check the path"),
        "{}",
        r.stderr
    );
    let r = ndnpy(&["ls", &fx("bad_magic.npy")]);
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert!(r.stderr.contains("bad_magic.npy"), "{}", r.stderr);
}

/// `ndnpy show` prints what `print(a)` prints, for every fixture.
#[test]
fn show_prints_as_numpy_prints() {
    let files = [
        "f8.npy",
        "f8_wide.npy",
        "f8_exp.npy",
        "f8_special.npy",
        "f8_round.npy",
        "f4_be_f.npy",
        "f2.npy",
        "i2_be.npy",
        "u8.npy",
        "i8_3d.npy",
        "b1.npy",
        "c16.npy",
        "c8.npy",
        "scalar_f8.npy",
        "scalar_i4.npy",
        "empty.npy",
        "big_1d.npy",
        "big_2d.npy",
        "big_3d_f.npy",
        "U.npy",
        "S.npy",
        "dates.npy",
        "dates_ms.npy",
        "td.npy",
        "rec.npy",
        "rec_sub.npy",
        "rec_nan.npy",
    ];
    let expected = numpy(&format!(
        "for f in {files:?}:\n    print(np.load(D + f))\n    print('\\x00')"
    ));
    let expected: Vec<&str> = expected.split("\0\n").collect();
    for (f, e) in files.iter().zip(expected) {
        assert_eq!(ok(&["show", &fx(f)]), e, "show {f}");
    }
}

/// The same for numpy's harder cases (`pr_*`: float32/float16 cutoffs, ties, exact digits,
/// wrapping, summarising) and 90 random arrays of every number type (`rnd_*`).
#[test]
fn show_prints_random_and_tricky_arrays_as_numpy_prints() {
    let mut files: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.starts_with("pr_") || f.starts_with("rnd_"))
        .collect();
    files.sort();
    assert!(files.len() >= 110);
    let expected = numpy(&format!(
        "for f in {files:?}:\n    print(np.load(D + f))\n    print('\\x00')"
    ));
    let expected: Vec<&str> = expected.split("\0\n").collect();
    for (f, e) in files.iter().zip(expected) {
        assert_eq!(ok(&["show", &fx(f)]), e, "show {f}");
    }
}

#[test]
fn show_members_rows_and_fields_as_numpy_slices_them() {
    let cases: [(&[&str], &str); 7] = [
        (&["show", "ab.npz:b"], "np.load(D + 'ab.npz')['b']"),
        (&["show", "ab.npz:label"], "np.load(D + 'ab.npz')['label']"),
        (&["show", "ab_z.npz:a"], "np.load(D + 'ab_z.npz')['a']"),
        (&["show", "one.npz"], "np.load(D + 'one.npz')['arr_0']"),
        (
            &["show", "big_2d.npy", "--rows", "10..13"],
            "np.load(D + 'big_2d.npy')[10:13]",
        ),
        (
            &["show", "f4_be_f.npy", "--rows", "1.."],
            "np.load(D + 'f4_be_f.npy')[1:]",
        ),
        (
            &["show", "rec.npy", "--field", "b"],
            "np.load(D + 'rec.npy')['b']",
        ),
    ];
    for (args, expr) in cases {
        let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        args[1] = fixtures().join(&args[1]).display().to_string();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_eq!(ok(&args), numpy(&format!("print({expr})")), "{args:?}");
    }
}

#[test]
fn show_refuses_what_it_cannot_print_with_a_reason() {
    let r = ndnpy(&["show", &fx("object.npy")]);
    assert_eq!(r.code, 5);
    assert!(
        r.stderr.contains("object.npy") && r.stderr.contains("allow_pickle"),
        "{}",
        r.stderr
    );
    let r = ndnpy(&["show", &fx("ab.npz")]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("MEMBER") && r.stderr.contains("label"),
        "{}",
        r.stderr
    );
    let r = ndnpy(&["show", &format!("{}:zz", fx("ab.npz"))]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("\"zz\"") && r.stderr.contains("ndnpy ls"),
        "{}",
        r.stderr
    );
    let r = ndnpy(&["show", &fx("f8.npy"), "--rows", "1..9"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("outside the first axis"), "{}", r.stderr);
    let r = ndnpy(&["show", &fx("f8.npy"), "--field", "x"]);
    assert_eq!(r.code, 2);
    let r = ndnpy(&["show", &format!("{}:notes.txt", fx("non_array.npz"))]);
    assert_eq!(r.code, 5);
    assert!(
        r.stderr.contains("notes.txt: not an array but 19 bytes"),
        "{}",
        r.stderr
    );
    let r = ndnpy(&["frobnicate"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--help"), "{}", r.stderr);
}

/// An archive of 10,000 members is listed from its headers alone (the suite does not time
/// it; listing it takes well under a second unoptimised).
#[test]
fn ls_lists_an_archive_of_ten_thousand_members() {
    let path = fixtures().join("many.npz");
    numpy(&format!(
        "np.savez_compressed({:?}, **{{f'm{{i}}': np.arange(i % 50) for i in range(10000)}})",
        path.display().to_string()
    ));
    let v: Value =
        serde_json::from_str(&ok(&["ls", "--json", &path.display().to_string()])).unwrap();
    let arrays = v[0]["arrays"].as_array().unwrap();
    assert_eq!(arrays.len(), 10000);
    assert_eq!(arrays[9999]["name"], "m9999");
    assert_eq!(arrays[9999]["shape"], serde_json::json!([49]));
}

/// A reader that stops early (`ndnpy ls big.npz | head`) ends the tool quietly with status
/// 141, as SIGPIPE ends other tools: no panic, nothing on standard error.
#[test]
fn ls_into_a_pipe_closed_early_exits_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let path = fixtures().join("many_pipe.npz");
    numpy(&format!(
        "np.savez({:?}, **{{f'member_{{i}}': np.arange(3) for i in range(3000)}})",
        path.display().to_string()
    ));
    let mut child = Command::new(env!("CARGO_BIN_EXE_ndnpy"))
        .args(["ls", &path.display().to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.ends_with(".npz archive, 3000 members\n"), "{first}");
    // The read end is closed here, with far more than a pipe's buffer still to write.
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(141), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// Selections in numpy's index syntax, after a file or a member: `show` prints what numpy
/// prints of `a[SEL]`, `stats` counts its elements, and `convert` writes it.
#[test]
fn selections_in_numpys_syntax_show_what_numpy_slices() {
    let cases = [
        ("big_2d.npy", "10:13, ::-7"),
        ("big_3d_f.npy", "::3, -1, 2:9:2"),
        ("big_3d_f.npy", "..., 4"),
        ("big_3d_f.npy", "None, 9, ::-4"),
        ("f4_be_f.npy", "-1"),
        ("f4_be_f.npy", "1, 2"),
        ("i8_3d.npy", "1:, ::-1"),
        ("rec.npy", "::-1"),
        // One record: numpy's np.void prints each float as its scalar's str (4.0, not 4.).
        ("rec.npy", "-1"),
        ("rec.npy", "0"),
        ("rec_floats.npy", "0"),
        ("rec_floats.npy", "1"),
        ("rec_floats.npy", "-1"),
        ("rec_nan.npy", "1"),
        ("rec_sub.npy", "0"),
        ("U.npy", "1:4"),
        ("dates.npy", "::2"),
        ("ab.npz:b", "::2, 1:"),
        ("ab_z.npz:a", "-2:"),
        ("big_1d.npy", "4990:2:-3"),
        ("big_1d.npy", "7:3"),
        // Steps at the ends of 64 bits, and past them, as Python clamps them.
        ("big_1d.npy", "::9223372036854775807"),
        ("big_1d.npy", "::-9223372036854775808"),
        (
            "big_1d.npy",
            "-9223372036854775809:10:100000000000000000000",
        ),
        // Chained brackets apply in turn.
        ("i8_3d.npy", "0][1"),
        ("big_3d_f.npy", ":, 2][::-2][1"),
        ("ab.npz:b", "1:][None][0, -1"),
    ];
    for (file, sel) in cases {
        let operand = format!("{}[{sel}]", fx(file));
        let (path, member) = match file.split_once(':') {
            Some((f, m)) => (f, format!("[{m:?}]")),
            None => (file, String::new()),
        };
        let expr = format!("np.load(D + {path:?}){member}[{sel}]");
        assert_eq!(
            ok(&["show", &operand]),
            numpy(&format!("print({expr})")),
            "{operand}"
        );
    }
    // Stats count the selected elements only.
    let out = ok(&["stats", "--json", &format!("{}[::10, 5]", fx("big_2d.npy"))]);
    assert!(
        out.contains("\"count\": 10") || out.contains("\"count\":10"),
        "{out}"
    );
    // Wrong selections are usage errors that say why, as numpy would.
    for (sel, why) in [
        (
            "1, 2, 3",
            "too many indices for array: array is 2-dimensional, but 3 were indexed",
        ),
        ("100", "index 100 is out of bounds for axis 0 with size 100"),
        ("::0", "slice step cannot be zero"),
    ] {
        let r = ndnpy(&["show", &format!("{}[{sel}]", fx("big_2d.npy"))]);
        assert_eq!(r.code, 2, "{sel}: {}", r.stderr);
        assert!(r.stderr.contains(why), "{sel}: {}", r.stderr);
    }
}
