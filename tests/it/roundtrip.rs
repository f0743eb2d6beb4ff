//! Property tests: any array we write, in any layout and byte order, reads back equal, and its
//! header re-encodes to the same bytes; any dtype we format parses back to itself.

use ndarray::{ArrayD, IxDyn, ShapeBuilder};
use ndnpy::{ByteOrder, DType, Header, ReadNpyExt, ReadOptions, WriteNpyExt, WriteOptions};
use proptest::prelude::*;

fn shapes() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..6, 0..5)
}

fn orders() -> impl Strategy<Value = ByteOrder> {
    prop_oneof![Just(ByteOrder::Little), Just(ByteOrder::Big)]
}

/// Layouts: 0 C, 1 Fortran, 2 reversed axes, 3 every axis stepped by -1.
fn check<T>(
    shape: Vec<usize>,
    values: Vec<T>,
    layout: u8,
    order: ByteOrder,
) -> Result<(), TestCaseError>
where
    T: ndnpy::ReadableElement + ndnpy::WritableElement + Clone + PartialEq + std::fmt::Debug,
{
    let n: usize = shape.iter().product();
    let values: Vec<T> = values.into_iter().cycle().take(n).collect();
    prop_assume!(values.len() == n);
    let base = if layout == 1 {
        ArrayD::from_shape_vec(IxDyn(&shape).f(), values).unwrap()
    } else {
        ArrayD::from_shape_vec(IxDyn(&shape), values).unwrap()
    };
    let mut view = base.view();
    match layout {
        2 => view = view.reversed_axes(),
        3 => {
            for ax in 0..view.ndim() {
                view.invert_axis(ndarray::Axis(ax));
            }
        }
        _ => {}
    }
    let mut bytes = Vec::new();
    view.write_npy_with_options(&mut bytes, &WriteOptions::new().byte_order(order))
        .unwrap();
    let back = ArrayD::<T>::read_npy(&bytes[..]).unwrap();
    prop_assert_eq!(&back, &view);
    let info = Header::read(&mut &bytes[..], &ReadOptions::default()).unwrap();
    prop_assert_eq!(info.data_offset % 64, 0);
    prop_assert_eq!(
        info.header.to_bytes().unwrap(),
        bytes[..info.data_offset as usize].to_vec()
    );
    prop_assert_eq!(bytes.len() as u64, info.data_offset + info.data_len as u64);
    Ok(())
}

proptest! {
    #[test]
    fn i32_round_trips(shape in shapes(), v in prop::collection::vec(any::<i32>(), 1..64), layout in 0u8..4, order in orders()) {
        check(shape, v, layout, order)?;
    }

    #[test]
    fn u16_round_trips(shape in shapes(), v in prop::collection::vec(any::<u16>(), 1..64), layout in 0u8..4, order in orders()) {
        check(shape, v, layout, order)?;
    }

    #[test]
    fn f64_round_trips_bitwise(shape in shapes(), v in prop::collection::vec(any::<u64>(), 1..64), layout in 0u8..4, order in orders()) {
        // Compare bits so NaN payloads and -0.0 count.
        let v: Vec<u64> = v;
        check(shape.clone(), v.clone(), layout, order)?;
        let f: Vec<f64> = v.iter().map(|&b| f64::from_bits(b)).filter(|x| !x.is_nan()).collect();
        if !f.is_empty() {
            check(shape, f, layout, order)?;
        }
    }

    #[test]
    fn bool_and_i8_round_trip(shape in shapes(), v in prop::collection::vec(any::<bool>(), 1..64), layout in 0u8..4) {
        check(shape.clone(), v.clone(), layout, ByteOrder::NATIVE)?;
        check(shape, v.iter().map(|&b| b as i8 - 1).collect(), layout, ByteOrder::NATIVE)?;
    }

    #[test]
    fn complex_round_trips(shape in shapes(), v in prop::collection::vec((-1e6f32..1e6, -1e6f32..1e6), 1..32), layout in 0u8..4, order in orders()) {
        let v: Vec<num_complex::Complex<f32>> = v.into_iter().map(|(r, i)| num_complex::Complex::new(r, i)).collect();
        check(shape, v, layout, order)?;
    }

    #[test]
    fn header_parser_never_panics(text in "\\PC{0,200}") {
        let _ = DType::from_descr(&text);
        let mut f = b"\x93NUMPY\x01\x00".to_vec();
        f.extend_from_slice(&(text.len() as u16).to_le_bytes());
        f.extend_from_slice(text.as_bytes());
        let _ = Header::read(&mut &f[..], &ReadOptions::default());
    }

    #[test]
    fn record_descrs_round_trip(
        fields in prop::collection::vec(("[a-zA-Z_'\" é整\\\\]{0,6}", 0usize..12, prop::sample::select(vec!["<i4", ">f8", "|u1", "|S3", "<U2", ">c8", "|b1", "<M8[ns]"]), 0usize..3), 1..6),
        trailing in 0usize..5,
    ) {
        let mut text = String::from("[");
        let mut seen = std::collections::HashSet::new();
        for (i, (name, pad, fmt, dims)) in fields.iter().enumerate() {
            let name = if name.is_empty() || !seen.insert(name.clone()) { format!("f{i}") } else { name.clone() };
            if *pad > 0 { text.push_str(&format!("('', '|V{pad}'), ")); }
            let mut quoted = String::new();
            // Build the literal with escapes Python would accept.
            quoted.push('\'');
            for c in name.chars() {
                if c == '\'' || c == '\\' { quoted.push('\\'); }
                quoted.push(c);
            }
            quoted.push('\'');
            match dims {
                0 => text.push_str(&format!("({quoted}, '{fmt}'), ")),
                d => text.push_str(&format!("({quoted}, '{fmt}', ({d},)), ")),
            }
        }
        if trailing > 0 { text.push_str(&format!("('', '|V{trailing}'), ")); }
        text.push(']');
        let d = DType::from_descr(&text).unwrap();
        let again = DType::from_descr(&d.descr()).unwrap();
        prop_assert_eq!(&again, &d);
        prop_assert_eq!(again.descr(), d.descr());
    }
}
