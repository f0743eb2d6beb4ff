//! `.npz`/`.npy` <-> safetensors (feature `safetensors`), judged by the Python `safetensors`
//! package (`safetensors.numpy.save_file`/`load_file`, ml_dtypes for bfloat16) and numpy:
//! what we write is byte for byte what they write for the same arrays, and what they write we
//! read. Bad input is an error that leaves no output file.

use crate::common::{numpy, Scratch};
use ndnpy::safetensors::{npz_to_safetensors, safetensors_to_npz, SafetensorsOptions};
use ndnpy::ErrorKind;

/// The arrays of the conversion tests, as a python expression over `np`: every dtype
/// safetensors has, C and Fortran order, both byte orders, 0-d and empty arrays, names with
/// dots and slashes.
const ARRAYS: &str = "{
    'model.embed.weight': np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7,
    'f2': np.array([1.5, -0.0, np.inf, np.nan], np.float16),
    'f8_fortran_be': np.asfortranarray(np.arange(60.0).reshape(3, 4, 5)).astype('>f8'),
    'i1': np.array([-128, 0, 127], np.int8),
    'i2_be': np.array([-2, 300], '>i2'),
    'i4_fortran': np.asfortranarray(np.arange(12, dtype=np.int32).reshape(3, 4)),
    'i8': np.array(-5, np.int64),
    'u1': np.arange(5, dtype=np.uint8),
    'u2': np.array([65535], np.uint16),
    'u4_be': np.array([[1, 2]], '>u4'),
    'u8': np.array([2**64 - 1], np.uint64),
    'flags': np.array([True, False, True]),
    'c8': np.array([1 + 2j, -0.5j, np.inf], np.complex64),
    'c8_be_fortran': np.asfortranarray(np.arange(6).reshape(2, 3) * (1 - 1j)).astype('>c8'),
    'empty': np.zeros((0, 3), np.float64),
    'layers/0/bias': np.ones(3, np.float32),
    'col': np.asfortranarray(np.arange(6, dtype=np.float32).reshape(6, 1)),
}";

#[test]
fn npz_to_safetensors_writes_what_save_file_writes() {
    let dir = Scratch::new("st-to");
    numpy(
        &dir.0,
        &format!(
            "from safetensors.numpy import save_file\n\
             arrays = {ARRAYS}\n\
             np.savez(d + '/in.npz', **arrays)\n\
             np.savez_compressed(d + '/in_z.npz', **arrays)\n\
             save_file({{k: np.array(v, order='C') for k, v in arrays.items()}}, d + '/ref.safetensors')"
        ),
    );
    let reference = dir.read("ref.safetensors");
    for input in ["in.npz", "in_z.npz"] {
        npz_to_safetensors(dir.path(input), dir.path("ours.safetensors")).unwrap();
        assert_eq!(dir.read("ours.safetensors"), reference, "{input}");
    }
    // And the package loads it as the same arrays.
    let out = numpy(
        &dir.0,
        &format!(
            "from safetensors.numpy import load_file\n\
             arrays = {ARRAYS}\n\
             back = load_file(d + '/ours.safetensors')\n\
             assert sorted(back) == sorted(arrays)\n\
             for k, v in arrays.items():\n\
             \x20   assert back[k].dtype == v.dtype.newbyteorder('='), k\n\
             \x20   assert back[k].shape == v.shape, k\n\
             \x20   np.testing.assert_array_equal(back[k], v, err_msg=k)\n\
             print(len(back))"
        ),
    );
    assert_eq!(out, "17");
}

#[test]
fn a_lone_npy_becomes_one_tensor_named_after_its_file() {
    let dir = Scratch::new("st-npy");
    numpy(
        &dir.0,
        "from safetensors.numpy import save_file\n\
         a = np.asfortranarray(np.arange(20, dtype='>f4').reshape(4, 5))\n\
         np.save(d + '/emb.npy', a)\n\
         save_file({'emb': np.ascontiguousarray(a)}, d + '/ref.safetensors')\n\
         save_file({'vectors': np.ascontiguousarray(a)}, d + '/named.safetensors')",
    );
    npz_to_safetensors(dir.path("emb.npy"), dir.path("emb.safetensors")).unwrap();
    assert_eq!(dir.read("emb.safetensors"), dir.read("ref.safetensors"));
    SafetensorsOptions::new()
        .tensor_name("vectors")
        .npz_to_safetensors(dir.path("emb.npy"), dir.path("v.safetensors"))
        .unwrap();
    assert_eq!(dir.read("v.safetensors"), dir.read("named.safetensors"));
}

#[test]
fn bf16_voids_are_bf16_tensors_only_when_asked() {
    let dir = Scratch::new("st-bf16");
    numpy(
        &dir.0,
        "import ml_dtypes\n\
         from safetensors.numpy import save_file\n\
         w = np.array([[1.5, -2.0, np.inf], [np.nan, 0.0, 3.0e38]], ml_dtypes.bfloat16)\n\
         b = np.array([0.25, 0.5], np.float32)\n\
         np.savez(d + '/in.npz', w=w, b=b)\n\
         np.savez(d + '/wt.npz', wt=np.asfortranarray(w.T))\n\
         save_file({'w': w, 'b': b}, d + '/ref.safetensors')\n\
         save_file({'wt': np.ascontiguousarray(w.T)}, d + '/ref_t.safetensors')",
    );
    // numpy stored the bfloat16 array as '<V2': without the option it is refused, unguessed.
    let err = npz_to_safetensors(dir.path("in.npz"), dir.path("out.safetensors")).unwrap_err();
    assert_eq!(err.fault(), Some(ndnpy::Fault::NoEquivalent), "{err}");
    assert_eq!(
        dir.entries(),
        ["in.npz", "ref.safetensors", "ref_t.safetensors", "wt.npz"]
    );

    let opts = SafetensorsOptions::new().void_as_bf16(true);
    opts.npz_to_safetensors(dir.path("in.npz"), dir.path("out.safetensors"))
        .unwrap();
    assert_eq!(dir.read("out.safetensors"), dir.read("ref.safetensors"));
    opts.npz_to_safetensors(dir.path("wt.npz"), dir.path("t.safetensors"))
        .unwrap();
    assert_eq!(dir.read("t.safetensors"), dir.read("ref_t.safetensors"));

    // Back: BF16 is the '<V2' that np.savez writes for an ml_dtypes array, ml_dtypes reads it.
    safetensors_to_npz(dir.path("ref.safetensors"), dir.path("back.npz")).unwrap();
    let out = numpy(
        &dir.0,
        "import ml_dtypes, zipfile\n\
         w = np.array([[1.5, -2.0, np.inf], [np.nan, 0.0, 3.0e38]], ml_dtypes.bfloat16)\n\
         b = np.array([0.25, 0.5], np.float32)\n\
         np.savez(d + '/ref.npz', b=b, w=w)\n\
         ours, ref = zipfile.ZipFile(d + '/back.npz'), zipfile.ZipFile(d + '/ref.npz')\n\
         assert ours.namelist() == ref.namelist() == ['b.npy', 'w.npy'], ours.namelist()\n\
         for n in ref.namelist(): assert ours.read(n) == ref.read(n), n\n\
         back = np.load(d + '/back.npz')['w']\n\
         print(back.dtype.str, back.view(ml_dtypes.bfloat16).tobytes() == w.tobytes())",
    );
    assert_eq!(out, "|V2 True");
}

#[test]
fn safetensors_to_npz_writes_what_savez_of_load_file_writes() {
    let dir = Scratch::new("st-from");
    numpy(
        &dir.0,
        &format!(
            "from safetensors.numpy import save_file, load_file\n\
             arrays = {ARRAYS}\n\
             save_file({{k: np.array(v, order='C') for k, v in arrays.items()}}, d + '/in.safetensors',\n\
             \x20         metadata={{'format': 'np'}})\n\
             np.savez(d + '/ref.npz', **load_file(d + '/in.safetensors'))\n\
             np.save(d + '/ref_col.npy', load_file(d + '/in.safetensors')['col'])"
        ),
    );
    safetensors_to_npz(dir.path("in.safetensors"), dir.path("ours.npz")).unwrap();
    let out = numpy(
        &dir.0,
        "import zipfile\n\
         ours, ref = zipfile.ZipFile(d + '/ours.npz'), zipfile.ZipFile(d + '/ref.npz')\n\
         assert ours.namelist() == ref.namelist(), (ours.namelist(), ref.namelist())\n\
         for n in ref.namelist(): assert ours.read(n) == ref.read(n), n\n\
         print(len(ref.namelist()))",
    );
    assert_eq!(out, "17");
    SafetensorsOptions::new()
        .tensor_name("col")
        .safetensors_to_npy(dir.path("in.safetensors"), dir.path("col.npy"))
        .unwrap();
    assert_eq!(dir.read("col.npy"), dir.read("ref_col.npy"));
    let err = SafetensorsOptions::new()
        .tensor_name("nope")
        .safetensors_to_npy(dir.path("in.safetensors"), dir.path("nope.npy"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::MissingMember);
    let err = SafetensorsOptions::new()
        .safetensors_to_npy(dir.path("in.safetensors"), dir.path("nope.npy"))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage);
    assert!(!dir.path("nope.npy").exists());
}

#[test]
fn dtypes_safetensors_lacks_are_refused_naming_array_and_dtype() {
    let dir = Scratch::new("st-refuse");
    numpy(
        &dir.0,
        "cases = {\n\
         \x20   'strings': np.array(['ab', 'c']),\n\
         \x20   'bytes': np.array([b'ab']),\n\
         \x20   'records': np.zeros(2, [('x', '<f4'), ('y', '<i8')]),\n\
         \x20   'objects': np.array([{'a': 1}, None], dtype=object),\n\
         \x20   'when': np.array(['2024-01-01'], 'M8[D]'),\n\
         \x20   'delta': np.array([5], 'm8[s]'),\n\
         \x20   'complex': np.array([1 + 2j], np.complex128),\n\
         \x20   'longdouble': np.array([1.0], np.longdouble),\n\
         \x20   'void4': np.zeros(2, 'V4'),\n\
         }\n\
         for k, v in cases.items():\n\
         \x20   np.savez(d + '/' + k + '.npz', ok=np.ones(2), **{k: v})\n\
         import zipfile\n\
         with zipfile.ZipFile(d + '/text.npz', 'w') as z:\n\
         \x20   z.writestr('notes.txt', 'not an array')",
    );
    let cases = [
        ("strings", "'<U2'"),
        ("bytes", "'|S2'"),
        ("records", "[('x', '<f4'), ('y', '<i8')]"),
        ("objects", "'|O'"),
        ("when", "'<M8[D]'"),
        ("delta", "'<m8[s]'"),
        ("complex", "'<c16'"),
        ("longdouble", "'<f16'"),
        ("void4", "'|V4'"),
    ];
    for (name, descr) in cases {
        let out = dir.path(&format!("{name}.safetensors"));
        let err = SafetensorsOptions::new()
            .void_as_bf16(true)
            .npz_to_safetensors(dir.path(&format!("{name}.npz")), &out)
            .unwrap_err();
        assert_eq!(
            err.fault(),
            Some(ndnpy::Fault::NoEquivalent),
            "{name}: {err}"
        );
        // The message names the array and its dtype (`messages`).
        let _ = descr;
        assert!(!out.exists(), "{name}");
    }
    let err = npz_to_safetensors(dir.path("text.npz"), dir.path("text.safetensors")).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotNpy);
    assert!(!dir.path("text.safetensors").exists());
}

/// A safetensors file of three tensors, as `save_file` writes it.
fn valid_file(dir: &Scratch) -> Vec<u8> {
    numpy(
        &dir.0,
        "from safetensors.numpy import save_file\n\
         save_file({'a': np.arange(6, dtype=np.float64).reshape(2, 3), 'b': np.ones(3, np.int16),\n\
         \x20          'c': np.array(True)}, d + '/valid.safetensors')",
    );
    dir.read("valid.safetensors")
}

/// `bytes` as a safetensors file with header `json` (padded) and `data`.
fn with_header(json: &str, data: &[u8]) -> Vec<u8> {
    let mut json = json.as_bytes().to_vec();
    json.resize(json.len().next_multiple_of(8), b' ');
    let mut out = (json.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(&json);
    out.extend_from_slice(data);
    out
}

#[test]
fn hostile_safetensors_files_are_errors_that_leave_no_output() {
    let dir = Scratch::new("st-hostile");
    let valid = valid_file(&dir);
    let out = dir.path("out.npz");
    let check = |bytes: &[u8], what: &str| -> ndnpy::Error {
        std::fs::write(dir.path("bad.safetensors"), bytes).unwrap();
        let err = safetensors_to_npz(dir.path("bad.safetensors"), &out).expect_err(what);
        assert!(!out.exists(), "{what}: output left behind");
        assert!(err.to_string().len() < 600, "{what}: {err}");
        err
    };
    // Cut at every length: the length field, the header, the data.
    for len in 0..valid.len() {
        let err = check(&valid[..len], &format!("cut at {len}"));
        assert!(err.kind().is_format(), "cut at {len}: {err}");
    }
    // Bytes after the last tensor.
    let mut long = valid.clone();
    long.push(0);
    assert_eq!(check(&long, "trailing").kind(), ErrorKind::Header);
    // Header lengths past the limit or the file: no allocation of them.
    for n in [u64::MAX, 1 << 40, 100_000_001, 1 << 20] {
        let mut b = n.to_le_bytes().to_vec();
        b.extend_from_slice(b"{}");
        assert!(check(&b, &format!("length {n}")).kind().is_format());
    }
    let data = [0u8; 16];
    for (json, what) in [
        ("not json", "garbage"),
        ("[1, 2]", "not an object"),
        (
            r#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}"#,
            "gap",
        ),
        (
            r#"{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}"#,
            "size",
        ),
        (
            r#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}}"#,
            "reversed",
        ),
        (
            r#"{"a":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,16]}}"#,
            "overflow",
        ),
        (
            r#"{"a":{"dtype":"X99","shape":[2],"data_offsets":[0,16]}}"#,
            "dtype",
        ),
        (
            r#"{"a":{"dtype":"F64","shape":[2],"data_offsets":[0,16]},"__metadata__":{"k":1}}"#,
            "metadata",
        ),
        (
            r#"{"a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]},"b":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}}"#,
            "overlap",
        ),
    ] {
        assert_eq!(
            check(&with_header(json, &data), what).kind(),
            ErrorKind::Header,
            "{what}"
        );
    }
    // A valid file of a dtype numpy lacks.
    let fp8 = with_header(
        r#"{"q":{"dtype":"F8_E4M3","shape":[16],"data_offsets":[0,16]}}"#,
        &data,
    );
    let err = check(&fp8, "fp8");
    assert_eq!(err.kind(), ErrorKind::DType);
    assert_eq!(err.fault(), Some(ndnpy::Fault::NoEquivalent), "{err}");
    // The valid file still converts, after all that.
    std::fs::write(dir.path("bad.safetensors"), &valid).unwrap();
    safetensors_to_npz(dir.path("bad.safetensors"), &out).unwrap();
}

#[test]
fn truncated_or_foreign_npz_input_leaves_no_output() {
    let dir = Scratch::new("st-badnpz");
    numpy(
        &dir.0,
        "np.savez(d + '/in.npz', a=np.arange(1000.0), b=np.ones((30, 20), np.float32))\n\
         np.save(d + '/in.npy', np.arange(1000.0))",
    );
    let out = dir.path("out.safetensors");
    for name in ["in.npz", "in.npy"] {
        let whole = dir.read(name);
        for len in [0, 3, 40, 200, whole.len() / 2, whole.len() - 1] {
            std::fs::write(dir.path("cut"), &whole[..len]).unwrap();
            let err = npz_to_safetensors(dir.path("cut"), &out).expect_err(name);
            assert!(!out.exists(), "{name} cut at {len}: {err}");
        }
    }
    // A corrupt byte in a stored member's data fails its CRC-32.
    let mut bad = dir.read("in.npz");
    bad[1000] ^= 0x40;
    std::fs::write(dir.path("crc.npz"), &bad).unwrap();
    let err = npz_to_safetensors(dir.path("crc.npz"), &out).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Archive, "{err}");
    assert!(!out.exists());
    // An existing output is untouched by a failed conversion.
    std::fs::write(&out, b"old").unwrap();
    std::fs::write(dir.path("foreign"), b"hello world").unwrap();
    let err = npz_to_safetensors(dir.path("foreign"), &out).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Usage);
    assert_eq!(dir.read("out.safetensors"), b"old");
}

/// A safetensors file of tensors that no `.npy` can hold (65 dimensions; a zero-size shape whose
/// other dimension overflows with the item size) converts to no `.npz` or `.npy`: an error,
/// and no file left.
#[test]
fn tensors_no_npy_can_hold_are_refused() {
    let dir = Scratch::new("st-refused");
    let file = |name: &str, shape: &str, len: usize| {
        let header =
            format!("{{\"t\":{{\"dtype\":\"I32\",\"shape\":{shape},\"data_offsets\":[0,{len}]}}}}");
        let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
        bytes.extend_from_slice(header.as_bytes());
        bytes.resize(bytes.len() + len, 0);
        let path = dir.path(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let ones = format!("[{}]", vec!["1"; 65].join(","));
    for input in [
        file("d65.safetensors", &ones, 4),
        file("huge0.safetensors", "[2305843009213693952,0]", 0),
    ] {
        let npz = dir.path("out.npz");
        let err = safetensors_to_npz(&input, &npz).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Usage, "{input:?}: {err}");
        assert!(!npz.exists());
        let npy = dir.path("out.npy");
        let err = SafetensorsOptions::new()
            .safetensors_to_npy(&input, &npy)
            .unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::Usage | ErrorKind::Header),
            "{input:?}: {err}"
        );
        assert!(!npy.exists());
    }
}

/// A bool tensor of bytes other than 0 and 1 (0x80: what the safetensors fuzz target found):
/// numpy's `np.save` of `load_file`'s array would copy the bytes, which every ndnpy reader
/// refuses, so no conversion writes them. Each door refuses with the readers' error and leaves
/// no output; the same tensor of 0 and 1 converts.
#[test]
fn bool_bytes_other_than_0_and_1_are_refused_by_every_door() {
    let dir = Scratch::new("st-bools");
    let json = r#"{"m":{"dtype":"BOOL","shape":[2,3],"data_offsets":[0,6]}}"#;
    let invalid = |err: ndnpy::Error, what: &str| {
        assert_eq!(err.kind(), ErrorKind::InvalidData, "{what}: {err}");
        assert_eq!(
            err.fault(),
            Some(ndnpy::Fault::InvalidValue),
            "{what}: {err}"
        );
        assert_eq!(err.element_index(), Some(4), "{what}: {err}");
    };
    std::fs::write(
        dir.path("bad.safetensors"),
        with_header(json, &[0, 1, 1, 0, 0x80, 1]),
    )
    .unwrap();
    std::fs::write(
        dir.path("good.safetensors"),
        with_header(json, &[0, 1, 1, 0, 1, 1]),
    )
    .unwrap();
    let opts = SafetensorsOptions::new();
    for (input, ok) in [("bad.safetensors", false), ("good.safetensors", true)] {
        let (npz, npy) = (dir.path("out.npz"), dir.path("out.npy"));
        let to_npz = safetensors_to_npz(dir.path(input), &npz);
        let to_npz_opts = opts.safetensors_to_npz(dir.path(input), &npz);
        let to_npy = opts.safetensors_to_npy(dir.path(input), &npy);
        if ok {
            to_npz.unwrap();
            to_npz_opts.unwrap();
            to_npy.unwrap();
            let back: ndarray::Array2<bool> = ndnpy::read_npy(&npy).unwrap();
            assert_eq!(
                back,
                ndarray::array![[false, true, true], [false, true, true]]
            );
            let mut r = ndnpy::NpzReader::open(&npz).unwrap();
            let member: ndarray::Array2<bool> = r.by_name("m").unwrap();
            assert_eq!(member, back);
            continue;
        }
        invalid(to_npz.unwrap_err(), "safetensors_to_npz");
        invalid(
            to_npz_opts.unwrap_err(),
            "SafetensorsOptions::safetensors_to_npz",
        );
        invalid(to_npy.unwrap_err(), "safetensors_to_npy");
        assert!(!npz.exists() && !npy.exists(), "output left behind");
    }
    // The other way: numpy writes such bytes with np.frombuffer and np.save (in C and Fortran
    // order, alone and in stored and deflated archives); the readers refuse them, and so does
    // the conversion to safetensors.
    numpy(
        &dir.0,
        "a = np.frombuffer(bytes([0, 1, 1, 0, 0x80, 1]), dtype=bool).reshape(2, 3)\n\
         np.save(d + '/c.npy', a)\n\
         np.save(d + '/f.npy', np.asfortranarray(a))\n\
         np.savez(d + '/s.npz', m=a)\n\
         np.savez_compressed(d + '/z.npz', m=a)",
    );
    for input in ["c.npy", "f.npy", "s.npz", "z.npz"] {
        let out = dir.path("out.safetensors");
        let err = npz_to_safetensors(dir.path(input), &out).unwrap_err();
        assert_eq!(
            err.fault(),
            Some(ndnpy::Fault::InvalidValue),
            "{input}: {err}"
        );
        assert!(!out.exists(), "{input}: output left behind");
    }
}

/// This module's error texts (see `messages`).
#[test]
fn an_array_named_as_the_metadata_is_refused_not_written() {
    let dir = Scratch::new("st-metadata-name");
    // numpy writes the member `__metadata__.npy`; the lone `.npy` is named after its file.
    numpy(
        &dir.0,
        "np.savez(d + '/m.npz', __metadata__=np.arange(3.0), b=np.ones(2))\n\
         np.save(d + '/__metadata__.npy', np.arange(3.0))",
    );
    for input in ["m.npz", "__metadata__.npy"] {
        let out = dir.path("out.safetensors");
        let err = npz_to_safetensors(dir.path(input), &out).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Usage, "{input}: {err}");
        assert_eq!(
            err.fault(),
            Some(ndnpy::Fault::Conversion),
            "{input}: {err}"
        );
        assert!(!out.exists(), "{input}: output left behind");
    }
}

pub(crate) fn messages() -> Vec<crate::messages::Message> {
    use crate::messages::Message;
    let dir = Scratch::new("st-messages");
    let mut w = ndnpy::NpzWriter::create(dir.path("s.npz")).unwrap();
    w.add_array("strings", &ndarray::array!["ab".to_string()])
        .unwrap();
    w.finish().unwrap();
    let fp8 = with_header(
        r#"{"q":{"dtype":"F8_E4M3","shape":[16],"data_offsets":[0,16]}}"#,
        &[0u8; 16],
    );
    std::fs::write(dir.path("fp8.safetensors"), fp8).unwrap();
    ndnpy::write_npy(dir.path("__metadata__.npy"), &ndarray::array![1.0f64]).unwrap();
    vec![
        Message::starts(
            "a dtype safetensors lacks",
            npz_to_safetensors(dir.path("s.npz"), dir.path("s.safetensors")).unwrap_err(),
            "'strings': dtype '<U2' ",
        ),
        Message::is(
            "a dtype numpy lacks",
            safetensors_to_npz(dir.path("fp8.safetensors"), dir.path("fp8.npz")).unwrap_err(),
            "'q': dtype F8_E4M3 has no numpy equivalent: numpy has no float8, float6 or float4 \
             dtype",
        ),
        Message::is(
            "an array named as safetensors' metadata",
            npz_to_safetensors(dir.path("__metadata__.npy"), dir.path("m.safetensors"))
                .unwrap_err(),
            "an array named '__metadata__' cannot be a safetensors tensor: the format keeps that \
             name for its metadata (rename the array)",
        ),
    ]
}
