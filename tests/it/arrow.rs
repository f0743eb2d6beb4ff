//! Arrays to Arrow and back (feature `arrow`): the type table, zero copy for numbers, and a
//! round trip of every dtype the table names back to the bytes numpy wrote.

use crate::common::{numpy, Scratch};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use ndnpy::arrow::{
    dyn_to_arrow, from_arrow, from_record_batch, to_arrow, to_record_batch, ArrowOptions,
};
use ndnpy::{DynArray, ErrorKind, Fault};
use std::sync::Arc;

fn npy(dir: &Scratch, name: &str) -> DynArray {
    ndnpy::read_npy_dyn(dir.path(name)).unwrap()
}

#[test]
fn a_256_mib_f64_array_becomes_an_arrow_array_without_a_copy() {
    let n = 32 << 20; // 256 MiB of f64
    let a = ndarray::Array1::<f64>::from_shape_fn(n, |i| i as f64).into_dyn();
    let address = a.as_ptr();
    let arrow = to_arrow(a).unwrap();
    let values = arrow.as_primitive::<Float64Type>();
    assert_eq!(values.len(), n);
    assert_eq!(values.values().as_ptr(), address, "the buffer was copied");
    assert_eq!(values.value(n - 1), (n - 1) as f64);

    // Through DynArray too (a file read into it), and with more axes: the lists wrap the
    // same buffer.
    let m = ndarray::Array2::<i32>::from_shape_fn((1000, 16), |(i, j)| (i * 16 + j) as i32);
    let address = m.as_ptr();
    let arrow = to_arrow(m).unwrap();
    let list = arrow.as_fixed_size_list();
    let inner = list.values().as_primitive::<Int32Type>();
    assert_eq!(inner.values().as_ptr(), address);
    assert_eq!(list.value_length(), 16);
}

#[test]
fn a_dyn_array_of_numbers_read_from_a_file_is_not_copied() {
    let dir = Scratch::new("arrow-dyn-zero");
    numpy(
        &dir.0,
        "np.save(d + '/a.npy', np.arange(1000, dtype='<f4'))",
    );
    let a = npy(&dir, "a.npy");
    let ndnpy::DynData::F32(values) = a.data() else {
        panic!()
    };
    let address = values.as_ptr();
    let arrow = dyn_to_arrow(a).unwrap();
    assert_eq!(
        arrow
            .as_primitive::<arrow_array::types::Float32Type>()
            .values()
            .as_ptr(),
        address
    );
}

/// Every dtype of the module's table, as numpy writes it: converted to Arrow, checked for its
/// Arrow type, and back to the same `.npy` bytes (in native order and C order).
#[test]
fn every_dtype_of_the_table_goes_to_arrow_and_back() {
    let dir = Scratch::new("arrow-table");
    numpy(
        &dir.0,
        "cases = {
            'b1': np.array([True, False, True]),
            'i1': np.array([-128, 0, 127], np.int8),
            'i2be': np.array([-2, 300], '>i2'),
            'i4': np.arange(6, dtype=np.int32).reshape(2, 3),
            'i8f': np.asfortranarray(np.arange(12, dtype=np.int64).reshape(3, 4)),
            'u1': np.arange(4, dtype=np.uint8),
            'u2': np.array([65535], np.uint16),
            'u4be': np.array([[1, 2]], '>u4'),
            'u8': np.array([2**64 - 1], np.uint64),
            'f2': np.array([1.5, -0.0, np.inf], np.float16),
            'f4': np.array([0.5, np.nan], np.float32),
            'f8be': np.arange(8.0).reshape(2, 2, 2).astype('>f8'),
            'c8': np.array([1+2j, -3.5j], np.complex64),
            'c16be': np.array([[1+2j], [3-4j]], '>c16'),
            'S': np.array([b'ab', b'', b'xyz']),
            'U': np.array(['h\\u00e9', '', '\\U0001F600x']),
            'Ube': np.array(['abc', 'd'], '>U3'),
            'V': np.array([b'\\x00\\x01\\x02', b'\\xff\\x00\\x00'], 'V3'),
            'Mns': np.array(['2020-01-01T00:00:00.000000001', 'NaT'], 'M8[ns]'),
            'Ms': np.array(['1970-01-01T00:00:01', '2038-01-19T03:14:08'], 'M8[s]'),
            'mus': np.array([1, -2, 'NaT'], 'm8[us]'),
            'mms': np.array([5], 'm8[ms]'),
            'rec': np.array([(1, 2.5, b'x'), (-1, 0.0, b'yz')], [('a', '<i4'), ('b', '>f8'), ('c', 'S2')]),
            'nested': np.array([((1, 2), [1.0, 2.0, 3.0])], [('p', [('x', 'u1'), ('y', 'u1')]), ('v', '<f4', (3,))]),
        }
for k, v in cases.items():
    np.save(d + '/' + k + '.npy', v)
    np.save(d + '/' + k + '.native.npy', np.ascontiguousarray(v.astype(v.dtype.newbyteorder('<'))))",
    );
    let expect = [
        ("b1", "Boolean"),
        ("i1", "Int8"),
        ("i2be", "Int16"),
        ("i4", "FixedSizeList(3 x Int32)"),
        ("i8f", "FixedSizeList(4 x Int64)"),
        ("u1", "UInt8"),
        ("u2", "UInt16"),
        ("u4be", "FixedSizeList(2 x UInt32)"),
        ("u8", "UInt64"),
        ("f2", "Float16"),
        ("f4", "Float32"),
        ("f8be", "FixedSizeList(2 x FixedSizeList(2 x Float64))"),
        ("c8", "FixedSizeList(2 x Float32)"),
        // The complex mark sits on the list of two floats (here the item of the outer list).
        (
            "c16be",
            r#"FixedSizeList(1 x FixedSizeList(2 x Float64), metadata: {"numpy.dtype": "<c16"})"#,
        ),
        ("S", "Binary"),
        ("U", "Utf8"),
        ("Ube", "Utf8"),
        ("V", "FixedSizeBinary(3)"),
        ("Mns", "Timestamp(ns)"),
        ("Ms", "Timestamp(s)"),
        ("mus", "Duration(µs)"),
        ("mms", "Duration(ms)"),
        ("rec", r#"Struct("a": Int32, "b": Float64, "c": Binary)"#),
        (
            "nested",
            r#"Struct("p": Struct("x": UInt8, "y": UInt8), "v": FixedSizeList(3 x Float32))"#,
        ),
    ];
    for (name, arrow_type) in expect {
        let a = npy(&dir, &format!("{name}.npy"));
        let batch = to_record_batch(a.clone()).unwrap();
        let arrow = dyn_to_arrow(a).unwrap();
        let shown = arrow.data_type().to_string();
        // Arrow's Display spells types its own way across versions; compare without spaces
        // and quotes' styles.
        let norm = |s: &str| s.replace([' ', '"'], "");
        assert_eq!(norm(&shown), norm(arrow_type), "{name}: {shown}");

        // Back: the array (records from the batch), the bytes numpy writes in native order.
        let back = if name == "rec" || name == "nested" {
            from_record_batch(&batch).unwrap()
        } else {
            let field = batch.schema().field(0).name().clone();
            ArrowOptions::new().from_column(&batch, &field).unwrap()
        };
        let mut bytes = Vec::new();
        back.write_npy(&mut bytes).unwrap();
        assert_eq!(bytes, dir.read(&format!("{name}.native.npy")), "{name}");
    }
}

#[test]
fn the_tensor_extension_carries_the_shape() {
    let dir = Scratch::new("arrow-tensor");
    numpy(
        &dir.0,
        "np.save(d + '/t.npy', np.arange(24, dtype=np.float32).reshape(2, 3, 4))",
    );
    let opts = ArrowOptions::new().tensor_extension(true);
    let batch = opts.to_record_batch(npy(&dir, "t.npy")).unwrap();
    let schema = batch.schema();
    let field = schema.field(0);
    assert_eq!(
        field.data_type().to_string().replace(' ', ""),
        "FixedSizeList(12xFloat32)"
    );
    assert_eq!(
        field.metadata()["ARROW:extension:name"],
        "arrow.fixed_shape_tensor"
    );
    assert_eq!(
        field.metadata()["ARROW:extension:metadata"],
        r#"{"shape":[3,4]}"#
    );
    let back = opts.from_column(&batch, "values").unwrap();
    assert_eq!(back, npy(&dir, "t.npy"));
}

#[test]
fn units_arrow_lacks_convert_exactly_or_fail() {
    let dir = Scratch::new("arrow-units");
    numpy(
        &dir.0,
        "np.save(d + '/days.npy', np.array(['2020-01-02', 'NaT'], 'M8[D]'))
np.save(d + '/w.npy', np.array([3], 'm8[W]'))
np.save(d + '/ps.npy', np.array([5000, 'NaT'], 'm8[ps]'))
np.save(d + '/ps_odd.npy', np.array([5001], 'm8[ps]'))
np.save(d + '/months.npy', np.array(['2020-01'], 'M8[M]'))
np.save(d + '/big.npy', np.array([2**62], 'M8[D]'))
np.save(d + '/ld.npy', np.array([1.0], np.longdouble))",
    );
    let days = dyn_to_arrow(npy(&dir, "days.npy")).unwrap();
    assert_eq!(days.data_type().to_string(), "Timestamp(s)");
    let t = days.as_primitive::<arrow_array::types::TimestampSecondType>();
    assert_eq!(t.value(0), 1_577_923_200); // 2020-01-02T00:00:00
    assert!(t.is_null(1), "NaT is null");
    let w = dyn_to_arrow(npy(&dir, "w.npy")).unwrap();
    assert_eq!(
        w.as_primitive::<arrow_array::types::DurationSecondType>()
            .value(0),
        3 * 604_800
    );
    let ps = dyn_to_arrow(npy(&dir, "ps.npy")).unwrap();
    let ps = ps.as_primitive::<arrow_array::types::DurationNanosecondType>();
    assert_eq!((ps.value(0), ps.is_null(1)), (5, true));
    // Picoseconds not a whole number of nanoseconds, months, values out of nanoseconds' range,
    // long doubles: none has an Arrow equivalent.
    for file in ["ps_odd.npy", "months.npy", "big.npy", "ld.npy"] {
        let err = dyn_to_arrow(npy(&dir, file)).unwrap_err();
        assert_eq!(err.fault(), Some(Fault::NoEquivalent), "{file}: {err}");
    }
}

#[test]
fn nulls_are_nat_in_times_and_an_error_elsewhere_unless_filled() {
    let ints: ArrayRef = Arc::new(arrow_array::Int64Array::from(vec![Some(1), None, Some(3)]));
    let err = from_arrow(&ints).unwrap_err();
    assert_eq!(err.fault(), Some(Fault::Conversion), "{err}");
    let filled = ArrowOptions::new()
        .fill_nulls(-9.0)
        .from_arrow(&ints)
        .unwrap();
    assert_eq!(
        filled.into_array::<i64>().unwrap().as_slice().unwrap(),
        [1, -9, 3]
    );
    let bad = ArrowOptions::new()
        .fill_nulls(0.5)
        .from_arrow(&ints)
        .unwrap_err();
    assert_eq!(bad.kind(), ErrorKind::Usage);

    let times: ArrayRef = Arc::new(arrow_array::TimestampMillisecondArray::from(vec![
        Some(5),
        None,
    ]));
    let t = from_arrow(&times).unwrap();
    assert_eq!(t.dtype().descr(), "'<M8[ms]'");
    let t = t.into_array::<ndnpy::Datetime64>().unwrap();
    assert!(t[1].is_nat() && t[0].value == 5);

    let strings: ArrayRef = Arc::new(arrow_array::StringArray::from(vec![Some("abc"), None]));
    assert!(from_arrow(&strings).is_err());
    let s = ArrowOptions::new()
        .fill_nulls(0.0)
        .from_arrow(&strings)
        .unwrap();
    assert_eq!(s.into_strings().unwrap().as_slice().unwrap(), ["abc", ""]);
}

#[test]
fn objects_and_variable_lists_are_refused_by_name() {
    let dir = Scratch::new("arrow-refuse");
    numpy(
        &dir.0,
        "np.save(d + '/o.npy', np.array([1, 'a'], dtype=object), allow_pickle=True)",
    );
    if let Ok(o) = ndnpy::read_npy_dyn(dir.path("o.npy")) {
        let err = dyn_to_arrow(o).unwrap_err();
        assert_eq!(err.fault(), Some(Fault::NoEquivalent), "{err}");
    }
    let list =
        arrow_array::ListArray::from_iter_primitive::<Int32Type, _, _>(vec![Some(vec![Some(1)])]);
    let err = from_arrow(&list).unwrap_err();
    assert_eq!(err.fault(), Some(Fault::NoEquivalent), "{err}");
}

#[test]
fn record_batches_of_other_writers_become_packed_records() {
    let batch = RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(arrow_array::UInt16Array::from(vec![7, 8])) as ArrayRef,
        ),
        (
            "name",
            Arc::new(arrow_array::LargeStringArray::from(vec!["é", "abcd"])) as ArrayRef,
        ),
        (
            "blob",
            Arc::new(arrow_array::BinaryViewArray::from(vec![
                &b"\x00a"[..],
                b"b",
            ])) as ArrayRef,
        ),
        (
            "day",
            Arc::new(arrow_array::Date32Array::from(vec![1, 2])) as ArrayRef,
        ),
    ])
    .unwrap();
    let r = from_record_batch(&batch).unwrap();
    assert_eq!(
        r.dtype().descr(),
        "[('id', '<u2'), ('name', '<U4'), ('blob', '|S2'), ('day', '<M8[D]')]"
    );
    // numpy reads the same record back.
    let dir = Scratch::new("arrow-batch");
    let mut bytes = Vec::new();
    r.write_npy(&mut bytes).unwrap();
    std::fs::write(dir.path("r.npy"), bytes).unwrap();
    let out = numpy(
        &dir.0,
        "r = np.load(d + '/r.npy')\nprint(r['id'].tolist(), r['name'].tolist(), r['blob'].tolist(), str(r['day'][1]))",
    );
    assert_eq!(out, "[7, 8] ['é', 'abcd'] [b'\\x00a', b'b'] 1970-01-03");
}
