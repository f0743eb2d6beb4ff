//! `ndnpy convert` writes exactly what `np.save` writes for the converted array.

mod common;
use common::{fx, ndnpy, numpy, ok};
use std::path::PathBuf;

fn out_dir(tag: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("ndnpy-cli-convert-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn converted_npy_is_byte_for_byte_what_np_save_writes() {
    let dir = out_dir("npy");
    // (input, options, numpy's expression of the converted array from `a`)
    let cases: &[(&str, &[&str], &str)] = &[
        ("f8.npy", &["--order", "F"], "np.asfortranarray(a)"),
        ("f8.npy", &["--byte-order", ">"], "a.astype('>f8')"),
        (
            "f4_be_f.npy",
            &["--order", "C", "--byte-order", "<"],
            "np.ascontiguousarray(a.astype('<f4'))",
        ),
        ("f4_be_f.npy", &[], "a"),
        ("big_3d_f.npy", &["--order", "C"], "np.ascontiguousarray(a)"),
        (
            "i8_3d.npy",
            &["--dtype", "float32", "--order", "F"],
            "np.asfortranarray(a.astype('float32'))",
        ),
        (
            "f8_special.npy",
            &["--dtype", "float16"],
            "a.astype('float16')",
        ),
        ("i2_be.npy", &["--dtype", "int8"], "a.astype('int8')"),
        ("f8.npy", &["--dtype", ">i4"], "a.astype('>i4')"),
        (
            "big_2d.npy",
            &["--dtype", "i2", "--order", "F"],
            "np.asfortranarray(a.astype('i2'))",
        ),
        (
            "b1.npy",
            &["--dtype", "u1", "--order", "F"],
            "np.asfortranarray(a.astype('u1'))",
        ),
        (
            "c16.npy",
            &["--dtype", "complex64", "--byte-order", ">"],
            "a.astype('>c8')",
        ),
        (
            "rec_mixed.npy",
            &["--byte-order", ">"],
            "a.astype(a.dtype.newbyteorder('>'))",
        ),
        ("U.npy", &["--byte-order", ">"], "a.astype('>U8')"),
        ("dates.npy", &["--byte-order", ">"], "a.astype('>M8[D]')"),
        ("empty.npy", &["--order", "F"], "np.asfortranarray(a)"),
        ("scalar_f8.npy", &["--byte-order", ">"], "a.astype('>f8')"),
    ];
    for (i, (input, opts, expr)) in cases.iter().enumerate() {
        let out = dir.join(format!("out{i}.npy")).display().to_string();
        let mut args = vec!["convert", &fx(input)]
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>();
        args.push(out.clone());
        args.extend(opts.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        ok(&args);
        let same = numpy(&format!(
            "import io\na = np.load(D + '{input}')\nb = io.BytesIO()\nnp.save(b, {expr})\n\
             print(b.getvalue() == open({out:?}, 'rb').read())"
        ));
        assert_eq!(same.trim(), "True", "convert {input} {opts:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn archives_convert_member_by_member() {
    let dir = out_dir("npz");
    let z = dir.join("z.npz").display().to_string();
    ok(&[
        "convert",
        &fx("ab.npz"),
        &z,
        "--compress",
        "--byte-order",
        ">",
    ]);
    let check = numpy(&format!(
        "import zipfile\nz, o = np.load({z:?}), np.load(D + 'ab.npz')\n\
         print(z.files == o.files, all(np.array_equal(z[k], o[k]) for k in o.files),\n\
               all(z[k].dtype.byteorder in '>|' for k in z.files),\n\
               {{i.compress_type for i in zipfile.ZipFile({z:?}).infolist()}} == {{8}})"
    ));
    assert_eq!(check.trim(), "True True True True");

    // A .npy into an archive: the member is named after the file; a member out as .npy.
    let one = dir.join("one.npz").display().to_string();
    ok(&["convert", &fx("f8.npy"), &one]);
    let back = dir.join("back.npy").display().to_string();
    ok(&["convert", &format!("{one}:f8"), &back]);
    assert_eq!(
        std::fs::read(&back).unwrap(),
        std::fs::read(fx("f8.npy")).unwrap()
    );
    let check = numpy(&format!("print(np.load({one:?}).files)"));
    assert_eq!(check.trim(), "['f8']");

    // Pickled members are copied unchanged, with a warning; the others converted.
    let w = dir.join("w.npz").display().to_string();
    let r = ndnpy(&["convert", &fx("with_object.npz"), &w, "--byte-order", ">"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("with_object.npz:o holds pickled Python objects: copied unchanged"),
        "{}",
        r.stderr
    );
    let check = numpy(&format!(
        "z = np.load({w:?}, allow_pickle=True)\nprint(z['a'].dtype.str, z['o'][0]['k'])"
    ));
    assert_eq!(check.trim(), ">f8 1");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn failed_conversions_leave_the_output_alone() {
    let dir = out_dir("fail");
    let out = dir.join("keep.npy");
    std::fs::write(&out, b"old").unwrap();
    let o = out.display().to_string();
    for (args, code) in [
        (
            vec!["convert", &fx("U.npy") as &str, &o, "--dtype", "float32"],
            5,
        ),
        (vec!["convert", &fx("bad_truncated.npy"), &o], 4),
        (
            vec!["convert", &fx("f8_exp.npy"), &o, "--dtype", "int32"],
            5,
        ),
        (vec!["convert", &fx("object.npy"), &o], 5),
        (vec!["convert", &fx("ab.npz"), &o], 2),
        (vec!["convert", &fx("f8.npy"), &o, "--compress"], 2),
        (vec!["convert", &fx("f8.npy"), &o, "--dtype", "U3"], 2),
        (vec!["convert", &fx("f8.npy"), &o, "--order", "X"], 2),
    ] {
        let r = ndnpy(&args);
        assert_eq!(r.code, code, "{args:?}: {}", r.stderr);
        assert!(!r.stderr.is_empty());
        assert_eq!(std::fs::read(&out).unwrap(), b"old", "{args:?}");
    }
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left,
        [std::ffi::OsString::from("keep.npy")],
        "temporary files left behind"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `convert 'IN[SEL]' OUT` writes the selection: numpy loads the dtype, shape and values of
/// its own `a[SEL]` (with `...` after the indices, so that one element stays an array).
#[test]
fn a_selection_converts_to_what_numpy_slices() {
    let dir = out_dir("select");
    let cases = [
        ("big_3d_f.npy", "::3, -1, 2:9:2"),
        ("rec.npy", "::-1"),
        ("f4_be_f.npy", "1, 2"),
        ("ab_z.npz:b", "1:, ::-1"),
        ("U.npy", "-2:"),
    ];
    for (k, (file, sel)) in cases.into_iter().enumerate() {
        let out = dir.join(format!("{k}.npy"));
        ok(&[
            "convert",
            &format!("{}[{sel}]", fx(file)),
            &out.display().to_string(),
        ]);
        let (path, member) = match file.split_once(':') {
            Some((f, m)) => (f, format!("[{m:?}]")),
            None => (file, String::new()),
        };
        let check = format!(
            "w = np.load(D + {path:?}){member}[{sel}, ...]\n\
             g = np.load({:?})\n\
             print(w.dtype == g.dtype and w.shape == g.shape and w.tobytes() == np.ascontiguousarray(g).tobytes())",
            out.display().to_string()
        );
        assert_eq!(numpy(&check), "True\n", "{file}[{sel}]");
    }
    let r = ndnpy(&[
        "convert",
        &format!("{}[1]", fx("f8.npy")),
        &dir.join("x.parquet").display().to_string(),
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}
