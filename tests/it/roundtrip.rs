//! Property tests of numbers and headers: any array of numbers we write, in any layout and
//! byte order, reads back equal (floats bit for bit: NaN payloads, signalling NaNs and -0.0
//! included), its header re-encodes to the same bytes, and a runtime-typed read writes it back
//! unchanged; numpy loads the same bits; any dtype we format parses back to itself; and any
//! header text, hostile or garbled, is a header or a typed format or limit error.

use crate::common::{numpy, Scratch};
use crate::layouts::{layouts, orders, round_trip, sample, shapes};
use ndarray::{ArrayD, IxDyn, ShapeBuilder};
use ndnpy::{
    dtype::ByteOrder, DType, Error, ErrorKind, Header, ReadOptions, WriteNpyExt, WriteOptions,
};
use num_complex::Complex;
use proptest::prelude::*;

/// The bits of `f64`s: any pattern, and more often the ones an arithmetic path would
/// change: -0.0, infinities, and NaNs of either sign, quiet or signalling, with payloads.
fn f64_bits() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => any::<u64>(),
        1 => prop::sample::select(vec![0, 1 << 63, 0x7ff0 << 48, 0xfff0 << 48]),
        2 => (any::<bool>(), any::<bool>(), 1u64..1 << 51).prop_map(|(neg, quiet, payload)| {
            u64::from(neg) << 63 | 0x7ff0 << 48 | u64::from(quiet) << 51 | payload
        }),
    ]
}

/// The bits of `f32`s, as [`f64_bits`] for 32 bits.
fn f32_bits() -> impl Strategy<Value = u32> {
    prop_oneof![
        4 => any::<u32>(),
        1 => prop::sample::select(vec![0, 1 << 31, 0x7f80 << 16, 0xff80 << 16]),
        2 => (any::<bool>(), any::<bool>(), 1u32..1 << 22).prop_map(|(neg, quiet, payload)| {
            u32::from(neg) << 31 | 0x7f80 << 16 | u32::from(quiet) << 22 | payload
        }),
    ]
}

fn f64s() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(f64_bits().prop_map(f64::from_bits), 1..64)
}

fn f32s() -> impl Strategy<Value = Vec<f32>> {
    prop::collection::vec(f32_bits().prop_map(f32::from_bits), 1..64)
}

fn same_f64(a: &f64, b: &f64) -> bool {
    a.to_bits() == b.to_bits()
}

fn same_f32(a: &f32, b: &f32) -> bool {
    a.to_bits() == b.to_bits()
}

/// Header texts a parser meets: valid ones of every kind, for garbling.
const HEADERS: [&str; 6] = [
    "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
    "{'descr': '>U5', 'fortran_order': True, 'shape': (0,), }",
    "{'descr': [('a', '<i4'), ('b', [('c', '|S3')], (2,))], 'fortran_order': False, 'shape': (), }",
    "{'descr': '<M8[25ms]', 'fortran_order': False, 'shape': (1_0,), }",
    "{'shape': (3,), 'fortran_order': False, 'descr': ('<f8', (2, 2))}",
    "{'descr': [(('t', 'n'), '<c16'), ('', '|V3')], 'fortran_order': False, 'shape': (1,)}",
];

/// A header text: any printable text, or a valid header with a piece replaced by any text.
fn header_texts() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,200}",
        (
            prop::sample::select(HEADERS.to_vec()),
            any::<prop::sample::Index>(),
            0usize..6,
            "\\PC{0,4}"
        )
            .prop_map(|(text, at, len, with)| {
                let chars: Vec<char> = text.chars().collect();
                let at = at.index(chars.len());
                let end = (at + len).min(chars.len());
                chars[..at]
                    .iter()
                    .chain(with.chars().collect::<Vec<_>>().iter())
                    .chain(&chars[end..])
                    .collect()
            }),
    ]
}

proptest! {
    #[test]
    fn i32_arrays_round_trip(shape in shapes(), v in prop::collection::vec(any::<i32>(), 1..64), layout in layouts(), order in orders()) {
        round_trip(&shape, &v, layout, order, PartialEq::eq)?;
    }

    #[test]
    fn u16_and_u64_arrays_round_trip(shape in shapes(), v in prop::collection::vec(any::<u64>(), 1..64), layout in layouts(), order in orders()) {
        round_trip(&shape, &v, layout, order, PartialEq::eq)?;
        let v: Vec<u16> = v.iter().map(|&x| x as u16).collect();
        round_trip(&shape, &v, layout, order, PartialEq::eq)?;
    }

    #[test]
    fn f64_arrays_round_trip_bit_for_bit(shape in shapes(), v in f64s(), layout in layouts(), order in orders()) {
        round_trip(&shape, &v, layout, order, same_f64)?;
    }

    #[test]
    fn f32_arrays_round_trip_bit_for_bit(shape in shapes(), v in f32s(), layout in layouts(), order in orders()) {
        round_trip(&shape, &v, layout, order, same_f32)?;
    }

    #[cfg(feature = "half")]
    #[test]
    fn f16_arrays_round_trip_bit_for_bit(shape in shapes(), v in prop::collection::vec(any::<u16>(), 1..64), layout in layouts(), order in orders()) {
        let v: Vec<half::f16> = v.into_iter().map(half::f16::from_bits).collect();
        round_trip(&shape, &v, layout, order, |a, b| a.to_bits() == b.to_bits())?;
    }

    #[test]
    fn complex_arrays_round_trip_bit_for_bit(shape in shapes(), re in f32s(), im in f32s(), re64 in f64s(), im64 in f64s(), layout in layouts(), order in orders()) {
        let v: Vec<Complex<f32>> = re.iter().zip(im.iter().cycle()).map(|(&r, &i)| Complex::new(r, i)).collect();
        round_trip(&shape, &v, layout, order, |a, b| same_f32(&a.re, &b.re) && same_f32(&a.im, &b.im))?;
        let v: Vec<Complex<f64>> = re64.iter().zip(im64.iter().cycle()).map(|(&r, &i)| Complex::new(r, i)).collect();
        round_trip(&shape, &v, layout, order, |a, b| same_f64(&a.re, &b.re) && same_f64(&a.im, &b.im))?;
    }

    #[test]
    fn bool_and_i8_arrays_round_trip(shape in shapes(), v in prop::collection::vec(any::<bool>(), 1..64), layout in layouts()) {
        round_trip(&shape, &v, layout, ByteOrder::NATIVE, PartialEq::eq)?;
        let v: Vec<i8> = v.iter().map(|&b| b as i8 - 1).collect();
        round_trip(&shape, &v, layout, ByteOrder::NATIVE, PartialEq::eq)?;
    }

    #[test]
    fn header_text_is_a_header_or_a_format_or_limit_error(text in header_texts()) {
        let typed = |e: &Error| e.kind().is_format() || e.kind() == ErrorKind::Limit;
        match DType::from_descr(&text) {
            Ok(d) => prop_assert_eq!(DType::from_descr(&d.descr()).unwrap(), d),
            Err(e) => prop_assert!(typed(&e), "{:?}", e),
        }
        let mut f = b"\x93NUMPY\x01\x00".to_vec();
        f.extend_from_slice(&(text.len() as u16).to_le_bytes());
        f.extend_from_slice(text.as_bytes());
        match Header::read(&mut &f[..], &ReadOptions::default()) {
            // What parses is a header we write the same way numpy would, and read back.
            Ok(info) => {
                let again = info.header.to_bytes().unwrap();
                let back = Header::read(&mut &again[..], &ReadOptions::default()).unwrap();
                prop_assert_eq!(back.header, info.header);
            }
            Err(e) => prop_assert!(typed(&e), "{:?}", e),
        }
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

/// Floats whose bits any arithmetic would change, then generated ones.
fn float_cases() -> (Vec<u64>, Vec<u32>) {
    let mut f64s: Vec<u64> = vec![
        0,
        1 << 63,               // -0.0
        0x7ff0_0000_0000_0000, // inf
        0xfff0_0000_0000_0000, // -inf
        0x7ff8_0000_0000_0000, // the quiet NaN
        0xfff8_0000_0000_0000, // negative
        0x7ff8_dead_beef_0001, // quiet, with a payload
        0x7ff0_0000_0000_0001, // signalling, smallest payload
        0x7ff7_ffff_ffff_ffff, // signalling, largest payload
        0xfff0_0000_0000_0abc, // signalling, negative
        1,                     // the smallest subnormal
        0x7fef_ffff_ffff_ffff, // the largest finite
    ];
    let mut f32s: Vec<u32> = vec![
        0,
        1 << 31,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0000,
        0x7fc0_beef,
        0x7f80_0001,
        0x7fbf_ffff,
        0xff80_0abc,
        1,
        0x7f7f_ffff,
    ];
    f64s.extend(sample(prop::collection::vec(f64_bits(), 40)));
    f32s.extend(sample(prop::collection::vec(f32_bits(), 40)));
    (f64s, f32s)
}

/// numpy loads our floats with the same bits, in both byte orders and both memory orders:
/// signalling NaNs stay signalling, payloads and signs stay, and `np.save` of what it loaded
/// gives our exact bytes.
#[test]
fn numpy_loads_the_float_bits_we_write_nan_payloads_and_negative_zero_included() {
    let dir = Scratch::new("float-bits");
    let (f64s, f32s) = float_cases();
    let mut expect = Vec::new();
    for (order, o) in [(ByteOrder::Little, "le"), (ByteOrder::Big, "be")] {
        for fortran in [false, true] {
            let layout = if fortran { "f" } else { "c" };
            let opts = WriteOptions::new().byte_order(order);
            let shape = IxDyn(&[4, 13]);
            let a = if fortran {
                ArrayD::from_shape_vec(shape.f(), f64s.iter().map(|&b| f64::from_bits(b)).collect())
            } else {
                ArrayD::from_shape_vec(shape, f64s.iter().map(|&b| f64::from_bits(b)).collect())
            }
            .unwrap();
            let name = format!("f8_{o}_{layout}.npy");
            a.write_npy_with_options(std::fs::File::create(dir.path(&name)).unwrap(), &opts)
                .unwrap();
            let bits: Vec<String> = a.iter().map(|x| format!("{:x}", x.to_bits())).collect();
            expect.push(format!("{name} {}", bits.join(" ")));

            let shape = IxDyn(&[4, 13]);
            let a = if fortran {
                ArrayD::from_shape_vec(shape.f(), f32s.iter().map(|&b| f32::from_bits(b)).collect())
            } else {
                ArrayD::from_shape_vec(shape, f32s.iter().map(|&b| f32::from_bits(b)).collect())
            }
            .unwrap();
            let name = format!("f4_{o}_{layout}.npy");
            a.write_npy_with_options(std::fs::File::create(dir.path(&name)).unwrap(), &opts)
                .unwrap();
            let bits: Vec<String> = a.iter().map(|x| format!("{:x}", x.to_bits())).collect();
            expect.push(format!("{name} {}", bits.join(" ")));
        }
    }
    let out = numpy(
        &dir.0,
        r#"
import os
for name in sorted(os.listdir(d)):
    raw = open(f"{d}/{name}", "rb").read()
    a = np.load(f"{d}/{name}")
    assert a.dtype.str == ("<" if "_le_" in name else ">") + name[:2], (name, a.dtype.str)
    assert a.flags.f_contiguous == name.endswith("_f.npy") and a.shape == (4, 13), name
    buf = io.BytesIO(); np.save(buf, a)
    assert buf.getvalue() == raw, f"{name}: np.save writes other bytes"
    bits = a.view(a.dtype.str.replace("f", "u")).ravel(order="C")
    print(name, " ".join(format(int(x), "x") for x in bits))
"#,
    );
    expect.sort();
    assert_eq!(out.lines().collect::<Vec<_>>(), expect);
}
