//! `ndnpy stats` against numpy's nanmin, nanmax, nanmean and nanstd, and on files far larger
//! than what it may hold in memory.

mod common;
use common::{fx, ndnpy, numpy, ok};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// numpy's statistics of each column (`expr` evaluates to a list of (name, array) pairs).
fn numpy_stats(expr: &str) -> Value {
    serde_json::from_str(&numpy(&format!(
        r#"
import warnings
warnings.simplefilter('ignore')
def num(v):
    v = float(v)
    return v if np.isfinite(v) else repr(v)
out = []
for name, a in {expr}:
    a = np.asarray(a, dtype=np.float64).ravel()
    finite_or_inf = a[~np.isnan(a)]
    out.append(dict(name=name, count=int(a.size), nan=int(np.isnan(a).sum()),
        posinf=int(np.isposinf(a).sum()), neginf=int(np.isneginf(a).sum()),
        min=num(np.nanmin(a)) if finite_or_inf.size else None,
        max=num(np.nanmax(a)) if finite_or_inf.size else None,
        mean=num(np.nanmean(a)) if finite_or_inf.size else None,
        std=num(np.nanstd(a)) if finite_or_inf.size else None))
print(json.dumps(out))
"#
    )))
    .unwrap()
}

fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

fn check(args: &[&str], expr: &str) {
    let mut all = vec!["stats", "--json"];
    all.extend_from_slice(args);
    let got: Value = serde_json::from_str(&ok(&all)).unwrap();
    let expected = numpy_stats(expr);
    let got = got["columns"].as_array().unwrap();
    let expected = expected.as_array().unwrap();
    assert_eq!(got.len(), expected.len(), "{args:?}");
    for (g, e) in got.iter().zip(expected) {
        assert_eq!(g["name"], e["name"], "{args:?}");
        assert_eq!(g["count"], e["count"], "{args:?}");
        for key in ["nan", "posinf", "neginf"] {
            if !g[key].is_null() {
                assert_eq!(g[key], e[key], "{args:?} {key}");
            }
        }
        for key in ["min", "max", "mean", "std"] {
            let (a, b) = (as_f64(&g[key]), as_f64(&e[key]));
            match (a, b) {
                (Some(a), Some(b)) => assert!(close(a, b), "{args:?} {key}: {a} vs numpy {b}"),
                _ => assert_eq!(a.is_some(), b.is_some(), "{args:?} {key}"),
            }
        }
    }
}

#[test]
fn stats_match_numpy() {
    let load = |f: &str| format!("np.load(D + '{f}')");
    for f in [
        "big_stats.npy",
        "f8_special.npy",
        "i8_3d.npy",
        "f2.npy",
        "b1.npy",
        "f4_be_f.npy",
        "i2_be.npy",
    ] {
        check(&[&fx(f)], &format!("[(None, {})]", load(f)));
    }
    check(
        &[&fx("u8.npy")],
        "[(None, np.load(D + 'u8.npy').astype(np.float64))]",
    );
    check(
        &[&fx("c16.npy")],
        "[(n, getattr(np.load(D + 'c16.npy'), n)) for n in ['real', 'imag']]",
    );
    check(
        &[&fx("rec_nan.npy")],
        "[(n, np.load(D + 'rec_nan.npy')[n]) for n in ['x', 'n']]",
    );
    check(
        &[&fx("rec_sub.npy")],
        "[(n, np.load(D + 'rec_sub.npy')[n]) for n in ['a', 'b']]",
    );
    check(
        &[&format!("{}:b", fx("ab_z.npz"))],
        "[(None, np.load(D + 'ab_z.npz')['b'])]",
    );
    check(
        &[&fx("big_2d.npy"), "--rows", "10..40"],
        "[(None, np.load(D + 'big_2d.npy')[10:40])]",
    );
    check(
        &[&fx("big_3d_f.npy"), "--rows", "2..5"],
        "[(None, np.load(D + 'big_3d_f.npy')[2:5])]",
    );
}

#[test]
fn stats_text_names_the_file_and_columns() {
    let out = ok(&["stats", &fx("rec_nan.npy")]);
    let expected = format!(
        "{}: [('x', '<f8'), ('n', '<i4')] (3,)
  field  count  nan  inf  min  max  mean                std
  x          3    1    0  1.0  3.0   2.0                1.0
  n          3    -    -    5    7   6.0  0.816496580927726
",
        fx("rec_nan.npy")
    );
    assert_eq!(out, expected);
    let out = ok(&["stats", &fx("dates.npy")]);
    assert!(out.contains("-768-02-03  2020-01-01"), "{out}");
    let r = ndnpy(&["stats", &fx("object.npy")]);
    assert_eq!(r.code, 5, "{}", r.stderr);
}

/// A sparse file numpy declares as 100 GiB (it takes a few KiB on disk): `ls` reads the
/// header only, `stats --rows` only the rows asked for, and a full `stats` of a 256 MiB file
/// stays far below 256 MiB of memory.
#[test]
fn large_files_are_listed_and_summarised_without_reading_them_whole() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ndnpy-cli-large-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let huge = dir.join("huge.npy");
    let mid = dir.join("mid.npy");
    let out = Command::new("python3")
        .arg("-c")
        .arg(format!(
            "import numpy as np\n\
             m = np.lib.format.open_memmap({:?}, mode='w+', dtype='<f8', shape=(104857600, 128))\n\
             m[5, :3] = [1.5, np.nan, -2]\nm.flush()\n\
             m = np.lib.format.open_memmap({:?}, mode='w+', dtype='<f8', shape=(32 * 1024 * 1024,))\n\
             m[7] = 3.0\nm.flush()\n",
            huge.display().to_string(),
            mid.display().to_string()
        ))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let huge_s = huge.display().to_string();

    // Reading 100 GiB would take many minutes: these return at once because they read the
    // header (ls) and the elements printed (show) only. The suite does not time them.
    let listing = ok(&["ls", "--json", &huge_s]);
    let v: Value = serde_json::from_str(&listing).unwrap();
    assert_eq!(
        v[0]["arrays"][0]["shape"],
        serde_json::json!([104857600u64, 128])
    );
    assert_eq!(v[0]["arrays"][0]["memory_bytes"], 107374182400u64);

    // show reads the elements it prints: numpy's print of the memory map, at once.
    let shown = ok(&["show", &huge_s]);
    let expected = numpy(&format!("print(np.load({huge_s:?}, mmap_mode='r'))"));
    assert_eq!(shown, expected);

    let got: Value =
        serde_json::from_str(&ok(&["stats", "--json", &huge_s, "--rows", "4..6"])).unwrap();
    let c = &got["columns"][0];
    assert_eq!(
        (c["count"].as_u64(), c["nan"].as_u64()),
        (Some(256), Some(1))
    );
    assert_eq!(
        (c["min"].as_f64(), c["max"].as_f64()),
        (Some(-2.0), Some(1.5))
    );

    // The peak resident memory of a full pass over 256 MiB, measured by Python's getrusage.
    let rss = numpy(&format!(
        "import resource, subprocess\n\
         r = subprocess.run([{:?}, 'stats', '--json', {:?}], capture_output=True, text=True)\n\
         assert r.returncode == 0, r.stderr\n\
         print(json.loads(r.stdout)['columns'][0]['max'])\n\
         print(len(r.stderr))\n\
         print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)",
        env!("CARGO_BIN_EXE_ndnpy"),
        mid.display().to_string()
    ));
    let mut lines = rss.lines();
    assert_eq!(lines.next(), Some("3.0"));
    // No progress bar when standard error is not a terminal.
    assert_eq!(lines.next(), Some("0"));
    let kib: u64 = lines.next().unwrap().parse().unwrap();
    assert!(
        kib < 100 * 1024,
        "stats of a 256 MiB file peaked at {kib} KiB"
    );

    // On a terminal (script(1) gives it one), a bar shows the work and is cleared after.
    if Path::new("/usr/bin/script").exists() {
        let cmd = format!("{} validate {}", env!("CARGO_BIN_EXE_ndnpy"), mid.display());
        let out = Command::new("/usr/bin/script")
            .args(["-qec", &cmd, "/dev/null"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("100.0%") && text.contains("[####"), "{text}");
        assert!(text.contains(": ok"), "{text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Long doubles (numpy's `float128`, the x86 extended format on x86; IEEE binary128
/// elsewhere): min, max, mean and std of their nearest float64s, as numpy gives them of
/// `a.astype(np.float64)`, with the values that do not fit a float64 exactly counted.
#[test]
fn long_doubles_have_stats_of_their_nearest_float64s() {
    let dir = common::out_dir("longdouble");
    let d = dir.display().to_string();
    let made = numpy(&format!(
        r#"
import os
d = {d:?}
if np.dtype(np.longdouble).itemsize != 16:
    print('skip')
else:
    ld = np.longdouble
    v = np.array([ld(1) / 10, ld(2.5), ld(-3), ld('nan'), ld('inf'), ld(2) ** 1100, ld(1) / 3, ld(0)], dtype=ld)
    np.save(os.path.join(d, 'ld.npy'), v)
    np.save(os.path.join(d, 'ld_be.npy'), v.astype(v.dtype.newbyteorder('>')))
    np.save(os.path.join(d, 'ld_f.npy'), np.asfortranarray(np.tile(v, (3, 1))))
    np.save(os.path.join(d, 'c32.npy'), (v + 1j * v[::-1]).astype(np.clongdouble))
    np.save(os.path.join(d, 'rec.npy'), np.array([(x, i) for i, x in enumerate(v)], dtype=[('x', ld), ('i', '<i4')]))
    print(int((v.astype(np.float64) != v).sum() - np.isnan(v).sum()), v.dtype.str)
"#
    ));
    if made.trim() == "skip" {
        return; // a platform whose long double is a float64 (numpy writes '<f8' for it)
    }
    // 0.1, 1/3 and 2^1100 (past float64's range) are inexact.
    assert_eq!(made.trim(), "3 <f16");
    let p = |f: &str| format!("{d}/{f}");
    let load = |f: &str| format!("np.load({:?})", p(f));
    for f in ["ld.npy", "ld_be.npy", "ld_f.npy"] {
        check(&[&p(f)], &format!("[(None, {})]", load(f)));
    }
    check(
        &[&p("c32.npy")],
        &format!("[('real', {0}.real), ('imag', {0}.imag)]", load("c32.npy")),
    );
    check(
        &[&p("rec.npy")],
        &format!("[('x', {0}['x']), ('i', {0}['i'])]", load("rec.npy")),
    );
    let got: Value = serde_json::from_str(&ok(&["stats", "--json", &p("ld.npy")])).unwrap();
    assert_eq!(got["columns"][0]["inexact"], 3);
    let text = ok(&["stats", &p("ld_f.npy")]);
    assert!(
        text.contains("9 long double values do not fit a float64 exactly"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
