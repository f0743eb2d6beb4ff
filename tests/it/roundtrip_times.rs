//! Property tests of datetimes: arrays of `Datetime64` (`M8`) and `Timedelta64` (`m8`) in
//! every unit from years to attoseconds, with multipliers, in the generic unit, with NaT and
//! the extreme tick counts, round trip exactly (value and unit) in any layout and byte order;
//! numpy loads the same ticks in the same units.

use crate::common::{numpy, Scratch};
use crate::layouts::{arrange, cases, layouts, orders, round_trip, sample, shapes};
use ndarray::ArrayD;
use ndnpy::{
    dtype::ByteOrder, dtype::DateTimeUnit, dtype::TimeUnit, element::NAT, DType, Datetime64,
    Timedelta64, WriteNpyExt, WriteOptions,
};
use proptest::prelude::*;

const TIME_UNITS: [TimeUnit; 13] = [
    TimeUnit::Years,
    TimeUnit::Months,
    TimeUnit::Weeks,
    TimeUnit::Days,
    TimeUnit::Hours,
    TimeUnit::Minutes,
    TimeUnit::Seconds,
    TimeUnit::Milliseconds,
    TimeUnit::Microseconds,
    TimeUnit::Nanoseconds,
    TimeUnit::Picoseconds,
    TimeUnit::Femtoseconds,
    TimeUnit::Attoseconds,
];

/// A unit: any base unit with a multiplier (mostly 1), or the generic unit.
fn units() -> impl Strategy<Value = Option<DateTimeUnit>> {
    prop_oneof![
        1 => Just(None),
        8 => (
            prop::sample::select(TIME_UNITS.to_vec()),
            prop::sample::select(vec![1u32, 1, 1, 7, 25, 1000]),
        )
            .prop_map(|(unit, multiplier)| Some(DateTimeUnit { unit, multiplier })),
    ]
}

/// Tick counts: any, small ones, NaT and its neighbour, the largest.
fn ticks() -> impl Strategy<Value = i64> {
    prop_oneof![
        3 => any::<i64>(),
        3 => -1000i64..1000,
        1 => prop::sample::select(vec![NAT, NAT + 1, i64::MAX]),
    ]
}

proptest! {
    #![proptest_config(cases(64))]

    #[test]
    fn datetime64_arrays_round_trip_in_every_unit(shape in shapes(), unit in units(), v in prop::collection::vec(ticks(), 1..48), layout in layouts(), order in orders()) {
        let v: Vec<Datetime64> = v.into_iter().map(|t| Datetime64::new(t, unit)).collect();
        round_trip(&shape, &v, layout, order, PartialEq::eq)?;
    }

    #[test]
    fn timedelta64_arrays_round_trip_in_every_unit(shape in shapes(), unit in units(), v in prop::collection::vec(ticks(), 1..48), layout in layouts(), order in orders()) {
        let v: Vec<Timedelta64> = v.into_iter().map(|t| Timedelta64::new(t, unit)).collect();
        round_trip(&shape, &v, layout, order, PartialEq::eq)?;
    }
}

/// The unit of `code` (`"25ms"`), as numpy spells it.
fn unit(code: &str) -> DateTimeUnit {
    let digits = code.find(|c: char| !c.is_ascii_digit()).unwrap();
    let base = DType::from_type_str(&format!("<M8[{}]", &code[digits..]))
        .unwrap()
        .as_scalar()
        .unwrap()
        .unit()
        .unwrap();
    DateTimeUnit {
        multiplier: code[..digits].parse().unwrap_or(1),
        ..base
    }
}

/// Writes `a` as `name` in `order`; returns the line numpy should print for it: the name, the
/// dtype, and the ticks in C order.
fn write<T: ndnpy::WritableElement>(
    dir: &Scratch,
    name: &str,
    a: &ArrayD<T>,
    order: ByteOrder,
    descr: &str,
    ticks: impl Fn(&T) -> i64,
) -> String {
    a.write_npy_with_options(
        std::fs::File::create(dir.path(name)).unwrap(),
        &WriteOptions::new().byte_order(order),
    )
    .unwrap();
    let t: Vec<String> = a.iter().map(|x| ticks(x).to_string()).collect();
    format!("{name} {descr} {}", t.join(" "))
}

/// numpy loads our `M8` and `m8` arrays, in units from years to attoseconds with multipliers,
/// both byte orders and memory orders, as the same ticks in the same unit (NaT as NaT), and
/// `np.save` of what it loaded gives our exact bytes.
#[test]
fn numpy_loads_the_datetimes_we_write_in_their_units() {
    let dir = Scratch::new("times-oracle");
    let mut values = vec![0, 1, -1, NAT, NAT + 1, i64::MAX];
    values.extend(sample(prop::collection::vec(ticks(), 18)));
    let mut expect = Vec::new();
    for code in [
        "Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "25ms", "7D",
    ] {
        let u = Some(unit(code));
        for (order, o) in [(ByteOrder::Little, '<'), (ByteOrder::Big, '>')] {
            for (fortran, f) in [(false, "c"), (true, "f")] {
                let shape = [4, 6];
                let dt: Vec<Datetime64> = values.iter().map(|&t| Datetime64::new(t, u)).collect();
                let a = arrange(&shape, &dt, fortran).unwrap();
                let name = format!("M_{code}_{}_{f}.npy", o == '>');
                expect.push(write(
                    &dir,
                    &name,
                    &a,
                    order,
                    &format!("{o}M8[{code}]"),
                    |t| t.value,
                ));
                let td: Vec<Timedelta64> = values.iter().map(|&t| Timedelta64::new(t, u)).collect();
                let a = arrange(&shape, &td, fortran).unwrap();
                let name = format!("m_{code}_{}_{f}.npy", o == '>');
                expect.push(write(
                    &dir,
                    &name,
                    &a,
                    order,
                    &format!("{o}m8[{code}]"),
                    |t| t.value,
                ));
            }
        }
    }
    // The generic unit holds only NaT in numpy.
    let generic = arrange(&[3], &[Datetime64::nat(None)], false).unwrap();
    expect.push(write(
        &dir,
        "generic.npy",
        &generic,
        ByteOrder::Little,
        "<M8",
        |t| t.value,
    ));
    let out = numpy(
        &dir.0,
        r#"
import os
for name in sorted(os.listdir(d)):
    raw = open(f"{d}/{name}", "rb").read()
    a = np.load(f"{d}/{name}")
    buf = io.BytesIO(); np.save(buf, a)
    assert buf.getvalue() == raw, f"{name}: np.save writes other bytes"
    assert np.isnat(a).tolist() == (a.view(a.dtype.str[0] + "i8") == np.iinfo(np.int64).min).tolist(), name
    ticks = a.view(a.dtype.str[0] + "i8").ravel(order="C").tolist()
    print(name, a.dtype.str, " ".join(map(str, ticks)))
"#,
    );
    expect.sort();
    assert_eq!(out.lines().collect::<Vec<_>>(), expect);
}
