//! `ndnpy convert` to and from `.safetensors`: what the Python `safetensors` package and
//! `np.savez` write, byte for byte; refusals and bad input leave no output.

mod common;
use common::{ndnpy, ok, out_dir, s};
use std::path::Path;

/// Runs python `code` with numpy as `np` and `d` the directory (ending in `/`); its output.
fn py(dir: &Path, code: &str) -> String {
    common::py_in(dir, "import numpy as np, ml_dtypes, zipfile\nfrom safetensors.numpy import save_file, load_file", code)
}

#[test]
fn converts_both_ways_as_the_python_package_and_savez_write() {
    let dir = out_dir("st-both");
    py(
        &dir,
        "w = np.asfortranarray(np.arange(12, dtype='>f4').reshape(3, 4))\n\
         bf = np.array([1.5, -2.0, np.inf], ml_dtypes.bfloat16)\n\
         ids = np.arange(5, dtype=np.int64)\n\
         np.savez(d + 'in.npz', w=w, bf=bf, ids=ids)\n\
         np.save(d + 'emb.npy', w)\n\
         save_file({'w': np.ascontiguousarray(w), 'bf': bf, 'ids': ids}, d + 'ref.safetensors')\n\
         save_file({'emb': np.ascontiguousarray(w)}, d + 'ref_emb.safetensors')\n\
         plain = {'w': np.ascontiguousarray(w.astype('<f4')), 'ids': ids}\n\
         save_file(plain, d + 'plain.safetensors')\n\
         np.savez(d + 'ref_plain.npz', **load_file(d + 'plain.safetensors'))\n\
         np.save(d + 'ref_ids.npy', ids)",
    );
    let out = s(dir.join("out.safetensors"));
    ok(&["convert", &s(dir.join("in.npz")), &out, "--void-as", "bf16"]);
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(dir.join("ref.safetensors")).unwrap()
    );
    let emb = s(dir.join("emb.safetensors"));
    ok(&["convert", &s(dir.join("emb.npy")), &emb]);
    assert_eq!(
        std::fs::read(&emb).unwrap(),
        std::fs::read(dir.join("ref_emb.safetensors")).unwrap()
    );

    ok(&[
        "convert",
        &s(dir.join("plain.safetensors")),
        &s(dir.join("back.npz")),
    ]);
    let same = py(
        &dir,
        "a, b = zipfile.ZipFile(d + 'back.npz'), zipfile.ZipFile(d + 'ref_plain.npz')\n\
         print(a.namelist() == b.namelist() and all(a.read(n) == b.read(n) for n in b.namelist()))",
    );
    assert_eq!(same, "True");
    let ids = format!("{}:ids", dir.join("plain.safetensors").display());
    ok(&["convert", &ids, &s(dir.join("ids.npy"))]);
    assert_eq!(
        std::fs::read(dir.join("ids.npy")).unwrap(),
        std::fs::read(dir.join("ref_ids.npy")).unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn refusals_and_bad_input_leave_no_output() {
    let dir = out_dir("st-bad");
    py(
        &dir,
        "np.savez(d + 'strings.npz', ok=np.ones(2), names=np.array(['a', 'b']))\n\
         np.savez(d + 'bf.npz', bf=np.array([1.5], ml_dtypes.bfloat16))\n\
         save_file({'x': np.ones(4, np.float32)}, d + 'x.safetensors')",
    );
    let out = dir.join("out.safetensors");
    // A dtype safetensors lacks: exit 5, naming the array and its dtype.
    let r = ndnpy(&["convert", &s(dir.join("strings.npz")), &s(out.clone())]);
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert!(r.stderr.contains("'names': dtype '<U1'"), "{}", r.stderr);
    // A void is not guessed to be bfloat16.
    let r = ndnpy(&["convert", &s(dir.join("bf.npz")), &s(out.clone())]);
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert!(r.stderr.contains("--void-as bf16"), "{}", r.stderr);
    assert!(!out.exists());
    // Truncated safetensors input: exit 4, no output.
    let whole = std::fs::read(dir.join("x.safetensors")).unwrap();
    std::fs::write(dir.join("cut.safetensors"), &whole[..whole.len() - 3]).unwrap();
    let npz = dir.join("cut.npz");
    let r = ndnpy(&["convert", &s(dir.join("cut.safetensors")), &s(npz.clone())]);
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert!(!npz.exists());
    // A foreign file named .safetensors: exit 4.
    std::fs::write(dir.join("text.safetensors"), b"hello, world").unwrap();
    let r = ndnpy(&["convert", &s(dir.join("text.safetensors")), &s(npz.clone())]);
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert!(!npz.exists());
    // Usage: options that do not apply, an unknown --void-as.
    for args in [
        &["--order", "F"][..],
        &["--compress"][..],
        &["--void-as", "f8"][..],
    ] {
        let mut all = vec!["convert", "", ""];
        let (a, b) = (s(dir.join("x.safetensors")), s(dir.join("x.npz")));
        all[1] = &a;
        all[2] = &b;
        all.extend_from_slice(args);
        let r = ndnpy(&all);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
    }
    assert!(!dir.join("x.npz").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A BOOL tensor holding 0x80: every reader refuses such a bool, so converting it to `.npy`,
/// to `.npz` or one tensor of it is an invalid file (exit 4) with no output, as is the same
/// array from numpy to safetensors.
#[test]
fn bool_bytes_other_than_0_and_1_are_an_invalid_file() {
    let dir = out_dir("st-bools");
    py(
        &dir,
        "save_file({'m': np.ones(3, bool), 'x': np.ones(2)}, d + 'in.safetensors')\n\
         b = bytearray(open(d + 'in.safetensors', 'rb').read())\n\
         b[-1] = 0x80\n\
         open(d + 'bad.safetensors', 'wb').write(b)\n\
         assert load_file(d + 'bad.safetensors')['m'].tobytes() == bytes([1, 1, 0x80])\n\
         np.save(d + 'bad.npy', np.frombuffer(bytes([1, 0x80]), bool))",
    );
    let member = format!("{}:m", dir.join("bad.safetensors").display());
    for (input, output) in [
        (s(dir.join("bad.safetensors")), dir.join("out.npz")),
        (member, dir.join("out.npy")),
        (s(dir.join("bad.npy")), dir.join("out.safetensors")),
    ] {
        let r = ndnpy(&["convert", &input, &s(output.clone())]);
        assert_eq!(r.code, 4, "{input}: {}", r.stderr);
        assert!(r.stderr.contains("as a bool"), "{input}: {}", r.stderr);
        assert!(!output.exists(), "{input}: output left behind");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
