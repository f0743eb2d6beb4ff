//! bfloat16 and float8 arrays saved through ml_dtypes (JAX's dtypes), which numpy stores as
//! voids (`'<V2'`, `'<V1'`): `half::bf16` reads and views them only when asked for, writes
//! what `np.save` of an ml_dtypes array writes, and ml_dtypes reads our files back; float8
//! arrays stay raw bytes. Fixtures: `testdata/generate_ml_dtypes.py`.

use crate::common::{numpy, Scratch};
use half::bf16;
use ndarray::{array, Array1, Array2, ArrayView1, ArrayView2, ShapeBuilder};
use ndnpy::{read_npy_dyn, DynData, ErrorKind, ReadNpyExt, ViewNpyExt, WriteNpyExt};

fn bits(v: impl IntoIterator<Item = bf16>) -> Vec<u16> {
    v.into_iter().map(bf16::to_bits).collect()
}

/// [1.5, -2.0, inf, nan] as ml_dtypes' bfloat16 bits.
const C4: [u16; 4] = [0x3fc0, 0xc000, 0x7f80, 0x7fc0];

/// [0, -0, 1, max, smallest subnormal, -inf].
const GRID: [u16; 6] = [0x0000, 0x8000, 0x3f80, 0x7f7f, 0x0001, 0xff80];

#[test]
fn reads_ml_dtypes_bfloat16_files_as_bf16() {
    let a: Array1<bf16> = ndnpy::read_npy("testdata/bf16_c_4.npy").unwrap();
    assert_eq!(bits(a.iter().copied()), C4);
    let g: Array2<bf16> = ndnpy::read_npy("testdata/bf16_c_2x3.npy").unwrap();
    assert_eq!(bits(g.iter().copied()), GRID);
    let f: Array2<bf16> = ndnpy::read_npy("testdata/bf16_f_3x2.npy").unwrap();
    assert_eq!(f, g.t());
    assert!(f.t().is_standard_layout());
    // numpy's own re-save of the loaded array: '|V2', bytes in native order.
    let r: Array1<bf16> = ndnpy::read_npy("testdata/bf16_reloaded_c_4.npy").unwrap();
    assert_eq!(bits(r), C4); // NaN too, bit for bit
}

#[test]
fn writes_bf16_as_np_save_of_an_ml_dtypes_array() {
    for name in ["bf16_c_4", "bf16_c_2x3", "bf16_f_3x2"] {
        let path = format!("testdata/{name}.npy");
        let a: ndarray::ArrayD<bf16> = ndnpy::read_npy(&path).unwrap();
        let mut out = Vec::new();
        a.write_npy(&mut out).unwrap();
        assert_eq!(out, std::fs::read(&path).unwrap(), "{name}");
    }
    // Written back from numpy's '|V2' copy, the array is '<V2' again, as ml_dtypes saves it.
    let r: Array1<bf16> = ndnpy::read_npy("testdata/bf16_reloaded_c_4.npy").unwrap();
    let mut out = Vec::new();
    r.write_npy(&mut out).unwrap();
    assert_eq!(out, std::fs::read("testdata/bf16_c_4.npy").unwrap());
}

#[test]
fn bf16_is_read_only_from_a_two_byte_void() {
    // A half float or a u16 is not bf16, whatever its bits.
    for file in [
        "f2_le_c_5",
        "u2_le_c_5",
        "f2_be_c_5",
        "f4_le_c_5",
        "f8e4m3fn_c_4",
    ] {
        let err = ndnpy::Error::from(
            ndnpy::read_npy::<_, Array1<bf16>>(format!("testdata/{file}.npy")).unwrap_err(),
        );
        assert_eq!(err.kind(), ErrorKind::DType, "{file}");
    }
    // And a void stays refused as f16 and u16.
    let err = ndnpy::Error::from(
        ndnpy::read_npy::<_, Array1<half::f16>>("testdata/bf16_c_4.npy").unwrap_err(),
    );
    assert_eq!(err.kind(), ErrorKind::DType);
    let err =
        ndnpy::Error::from(ndnpy::read_npy::<_, Array1<u16>>("testdata/bf16_c_4.npy").unwrap_err());
    assert_eq!(err.fault(), Some(ndnpy::Fault::DType), "{err}");
    assert_eq!(
        err.dtype().map(|d| d.descr()).as_deref(),
        Some("'<V2'"),
        "{err}"
    );
    let err = ndnpy::Error::from(
        ndnpy::read_npy::<_, Array1<bf16>>("testdata/u2_le_c_5.npy").unwrap_err(),
    );
    assert_eq!(err.fault(), Some(ndnpy::Fault::DType), "{err}");
    assert_eq!(
        err.dtype().map(|d| d.descr()).as_deref(),
        Some("'<u2'"),
        "{err}"
    );
}

#[test]
fn dyn_reads_keep_a_void_raw_and_view_it_as_bf16_on_request() {
    let a = read_npy_dyn("testdata/bf16_c_4.npy").unwrap();
    assert_eq!(a.dtype().descr(), "'<V2'");
    assert!(matches!(a.data(), DynData::Raw(_)));
    assert_eq!(bits(a.view_as::<bf16>().unwrap().iter().copied()), C4);
    // Written back as read: '<V2' stays '<V2', '|V2' stays '|V2'.
    for name in [
        "bf16_c_4",
        "bf16_reloaded_c_4",
        "bf16_f_3x2",
        "f8e4m3fn_c_4",
    ] {
        let path = format!("testdata/{name}.npy");
        let mut out = Vec::new();
        read_npy_dyn(&path).unwrap().write_npy(&mut out).unwrap();
        assert_eq!(out, std::fs::read(&path).unwrap(), "{name}");
    }
    let f = read_npy_dyn("testdata/bf16_f_3x2.npy").unwrap();
    let v = f.view_as::<bf16>().unwrap();
    assert_eq!(v.shape(), [3, 2]);
    assert_eq!(v[[2, 0]].to_bits(), GRID[2]);
    // A record's bf16 field taken out by name, then viewed.
    let rec = read_npy_dyn("testdata/bf16_record.npy").unwrap();
    let x = rec.field("x").unwrap();
    assert_eq!(x.dtype().descr(), "'<V2'");
    assert_eq!(
        bits(x.view_as::<bf16>().unwrap().iter().copied()),
        [0x3f00, 0xc040]
    );
    // Typed arrays are not reinterpreted.
    let typed = read_npy_dyn("testdata/u2_le_c_5.npy").unwrap();
    assert_eq!(
        typed.view_as::<bf16>().unwrap_err().kind(),
        ErrorKind::DType
    );
}

#[test]
fn float8_arrays_are_raw_bytes_holding_their_bits() {
    let a = read_npy_dyn("testdata/f8e4m3fn_c_4.npy").unwrap();
    assert_eq!(a.dtype().descr(), "'<V1'");
    let DynData::Raw(raw) = a.data() else {
        panic!("not raw")
    };
    // float8_e4m3fn: 1.5, -2.0, 448 (its largest), NaN.
    assert_eq!(raw.bytes, [0x3c, 0xc0, 0x7e, 0x7f]);
    assert_eq!(a.view_as::<u8>().unwrap_err().kind(), ErrorKind::DType);
}

#[test]
fn views_bf16_in_place_and_refuses_the_other_byte_order() {
    let file = std::fs::read("testdata/bf16_c_2x3.npy").unwrap();
    // Copied into u64s so that the data is aligned.
    let mut words = vec![0u64; file.len().div_ceil(8)];
    let len = std::mem::size_of_val(&words[..]);
    // SAFETY: any bytes are valid u64 parts.
    let bytes = unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), len) };
    bytes[..file.len()].copy_from_slice(&file);
    let v = ArrayView2::<bf16>::view_npy(&bytes[..file.len()]).unwrap();
    assert_eq!(bits(v.iter().copied()), GRID);

    let a = array![bf16::from_f32(1.5), bf16::from_f32(-2.0)];
    let opts = ndnpy::WriteOptions::new().byte_order(ndnpy::dtype::ByteOrder::Big);
    let dir = Scratch::new("bf16-big");
    opts.write_npy(dir.path("be.npy"), &a).unwrap();
    let be = dir.read("be.npy");
    assert!(be.starts_with(b"\x93NUMPY\x01\x00v\x00{'descr': '>V2'"));
    assert_eq!(Array1::<bf16>::read_npy(&be[..]).unwrap(), a);
    if cfg!(target_endian = "little") {
        let mut aligned = vec![0u64; be.len().div_ceil(8)];
        let len = std::mem::size_of_val(&aligned[..]);
        // SAFETY: as above.
        let b = unsafe { std::slice::from_raw_parts_mut(aligned.as_mut_ptr().cast::<u8>(), len) };
        b[..be.len()].copy_from_slice(&be);
        let err = ArrayView1::<bf16>::view_npy(&b[..be.len()]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::CannotView);
    }
}

#[cfg(feature = "derive")]
#[derive(ndnpy::NpyRecord, Debug, Clone, Copy, PartialEq)]
struct Sample {
    x: bf16,
    y: f32,
}

#[cfg(feature = "derive")]
#[test]
fn bf16_record_fields_read_and_write_as_ml_dtypes_does() {
    let a: Array1<Sample> = ndnpy::read_npy("testdata/bf16_record.npy").unwrap();
    assert_eq!(
        a,
        array![
            Sample {
                x: bf16::from_f32(0.5),
                y: 1.25
            },
            Sample {
                x: bf16::from_f32(-3.0),
                y: 2.5
            }
        ]
    );
    let mut out = Vec::new();
    a.write_npy(&mut out).unwrap();
    assert_eq!(out, std::fs::read("testdata/bf16_record.npy").unwrap());
}

/// Runs `script` with numpy and ml_dtypes imported; fails, saying how to install it, if
/// ml_dtypes is missing.
fn with_ml_dtypes(dir: &std::path::Path, script: &str) -> String {
    let have = std::process::Command::new("python3")
        .args(["-c", "import ml_dtypes"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        have,
        "these tests need ml_dtypes in python3: python3 -m pip install ml_dtypes (.ci/run does)"
    );
    numpy(dir, &format!("import ml_dtypes\n{script}"))
}

#[test]
fn ml_dtypes_reads_back_the_bf16_we_write() {
    let dir = Scratch::new("bf16-ml-dtypes");
    let values: Vec<f32> = vec![1.5, -2.0, 0.1, 1e30, -0.0, 3.4e38, f32::INFINITY, 1e-40];
    let a = Array1::from_iter(values.iter().map(|&v| bf16::from_f32(v)));
    ndnpy::write_npy(dir.path("ours.npy"), &a).unwrap();
    let f = Array2::from_shape_vec((2, 4).f(), a.to_vec()).unwrap();
    ndnpy::write_npy(dir.path("ours_f.npy"), &f).unwrap();
    let list = format!("{values:?}").replace("inf", "float('inf')");
    let out = with_ml_dtypes(
        &dir.0,
        &format!(
            "b = np.array({list}, dtype=np.float32).astype(ml_dtypes.bfloat16)\n\
             ours = np.load(d + '/ours.npy').view(ml_dtypes.bfloat16)\n\
             same = ours.dtype == b.dtype and ours.view('u2').tolist() == b.view('u2').tolist()\n\
             np.save(d + '/theirs.npy', b)\n\
             np.save(d + '/theirs_f.npy', np.asfortranarray(b.reshape((2, 4), order='F')))\n\
             print(same, ours.tolist() == b.tolist())"
        ),
    );
    assert_eq!(out, "True True");
    assert_eq!(dir.read("ours.npy"), dir.read("theirs.npy"));
    assert_eq!(dir.read("ours_f.npy"), dir.read("theirs_f.npy"));
}
