//! Datetime and timedelta fields in derived records (`DatetimeIn<U>`, `TimedeltaIn<U>`):
//! matplotlib's goog.npz shape (a `datetime64[D]` field among floats) read through a struct
//! and written back byte for byte; conversions between units checked against numpy's
//! `astype` where they are exact, and refused where numpy would round or wrap; writing
//! byte-exact with numpy building the same structured array.

use crate::common::{numpy, Scratch};
use ndarray::{array, Array1, ArrayView1};
use ndnpy::{
    element::DatetimeIn, element::TimedeltaIn, unit, ErrorKind, NpyRecord, NpzReader, NpzWriter,
    ReadNpyExt, ViewNpyExt, WriteNpyExt,
};

/// One row of matplotlib's goog.npz (`price_data`).
#[derive(NpyRecord, Debug, Clone, Copy, PartialEq)]
#[repr(C)]
struct Price {
    date: DatetimeIn<unit::Days>,
    open: f64,
    high: f64,
    low: f64,
    close: f64,
    volume: i64,
    adj_close: f64,
}

#[test]
fn reads_goog_like_npz_through_a_derived_struct() {
    let mut npz = NpzReader::open("testdata/goog_like.npz").unwrap();
    let a: Array1<Price> = npz.by_name("price_data").unwrap();
    assert_eq!(a.len(), 8);
    // np.datetime64('2004-08-19', 'D').astype('i8') == 12649
    assert_eq!(a[0].date, DatetimeIn::new(12649));
    assert_eq!(a[7].date.value, 12660);
    assert_eq!((a[1].open, a[1].high, a[1].low), (101.5, 103.75, 99.75));
    assert_eq!(a[2].volume, 42_000_000);
    assert_eq!(a[2].adj_close, a[2].close);
}

#[test]
fn writes_goog_like_npz_back_byte_for_byte() {
    let mut npz = NpzReader::open("testdata/goog_like.npz").unwrap();
    let a: Array1<Price> = npz.by_name("price_data").unwrap();
    let member = npz.member("price_data").unwrap().bytes().unwrap();
    let mut npy = Vec::new();
    a.write_npy(&mut npy).unwrap();
    assert_eq!(npy, member);

    // And numpy loads an archive of it as the one it wrote.
    let dir = Scratch::new("goog-like-npz");
    let mut w = NpzWriter::create(dir.path("ours.npz")).unwrap();
    w.add_array("price_data", &a).unwrap();
    w.finish().unwrap();
    let same = numpy(
        &dir.0,
        "ours = np.load(d + '/ours.npz')['price_data']\n\
         theirs = np.load('testdata/goog_like.npz')['price_data']\n\
         print(ours.dtype == theirs.dtype and ours.tobytes() == theirs.tobytes())",
    );
    assert_eq!(same, "True");
}

#[test]
fn views_goog_like_records_in_place() {
    let mut npz = NpzReader::open("testdata/goog_like.npz").unwrap();
    let member = npz.member("price_data").unwrap().bytes().unwrap();
    // A copy aligned for the records (a Vec<u64>'s bytes).
    let mut words = vec![0u64; member.len().div_ceil(8)];
    let bytes: &mut [u8] = bytemuck_bytes(&mut words);
    bytes[..member.len()].copy_from_slice(&member);
    let v = ArrayView1::<Price>::view_npy(&bytes[..member.len()]).unwrap();
    assert_eq!(v[3].date.value, 12654);
}

fn bytemuck_bytes(words: &mut [u64]) -> &mut [u8] {
    let len = std::mem::size_of_val(words);
    // SAFETY: u64 has no padding and any byte is a valid part of one.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), len) }
}

#[derive(NpyRecord, Debug, Clone, PartialEq)]
struct Event {
    id: u16,
    at: DatetimeIn<unit::Seconds>,
    took: TimedeltaIn<unit::Milliseconds>,
    month: DatetimeIn<unit::Months>,
}

#[test]
fn writes_time_fields_as_numpy_builds_them() {
    let dir = Scratch::new("record-times-write");
    let a = array![
        Event {
            id: 1,
            at: DatetimeIn::new(1_700_000_000),
            took: TimedeltaIn::new(-1500),
            month: DatetimeIn::new(647),
        },
        Event {
            id: 2,
            at: DatetimeIn::NAT,
            took: TimedeltaIn::NAT,
            month: DatetimeIn::NAT,
        },
    ];
    ndnpy::write_npy(dir.path("ours.npy"), &a).unwrap();
    numpy(
        &dir.0,
        "dt = np.dtype([('id', '<u2'), ('at', '<M8[s]'), ('took', '<m8[ms]'), ('month', '<M8[M]')])\n\
         a = np.array([(1, 1_700_000_000, -1500, 647), (2, 'NaT', 'NaT', 'NaT')], dtype=dt)\n\
         np.save(d + '/numpy.npy', a)",
    );
    assert_eq!(dir.read("ours.npy"), dir.read("numpy.npy"));
    let back: Array1<Event> = ndnpy::read_npy(dir.path("numpy.npy")).unwrap();
    assert_eq!(back, a);
}

/// A record of one time field `t` (and numpy's file has another field before it).
trait Tick: ndnpy::ReadableElement {
    fn tick(&self) -> i64;
}

macro_rules! tick_records {
    ($($name:ident: $ty:ty;)*) => {$(
        #[derive(NpyRecord, Debug, PartialEq)]
        struct $name {
            t: $ty,
        }
        impl Tick for $name {
            fn tick(&self) -> i64 {
                self.t.value
            }
        }
    )*};
}

tick_records! {
    StampY: DatetimeIn<unit::Years>;
    StampM: DatetimeIn<unit::Months>;
    StampW: DatetimeIn<unit::Weeks>;
    StampD: DatetimeIn<unit::Days>;
    StampH: DatetimeIn<unit::Hours>;
    StampS: DatetimeIn<unit::Seconds>;
    StampMs: DatetimeIn<unit::Milliseconds>;
    StampUs: DatetimeIn<unit::Microseconds>;
    StampNs: DatetimeIn<unit::Nanoseconds>;
    SpanY: TimedeltaIn<unit::Years>;
    SpanM: TimedeltaIn<unit::Months>;
    SpanD: TimedeltaIn<unit::Days>;
    SpanS: TimedeltaIn<unit::Seconds>;
    SpanMs: TimedeltaIn<unit::Milliseconds>;
    SpanAs: TimedeltaIn<unit::Attoseconds>;
}

fn ticks<T: Tick>(file: &[u8]) -> Vec<i64> {
    Array1::<T>::read_npy(file)
        .unwrap()
        .iter()
        .map(T::tick)
        .collect()
}

/// numpy writes `values` as `from` (in either byte order), and numpy's `astype(to)` of them
/// is what `read` gives (a datetime) — for values that convert exactly.
fn astype_agrees(kind: &str, from: &str, to: &str, values: &[i64], read: fn(&[u8]) -> Vec<i64>) {
    let dir = Scratch::new(&format!("astype-{kind}-{from}-{to}"));
    let list = format!("{values:?}");
    for order in ["<", ">"] {
        let out = numpy(
            &dir.0,
            &format!(
                "v = np.array({list}, dtype='i8').view('{kind}8[{from}]').astype('{order}{kind}8[{from}]')\n\
                 a = np.zeros(len(v), dtype=[('pad', 'u1'), ('t', v.dtype)])\n\
                 a['t'] = v\n\
                 np.save(d + '/a.npy', a)\n\
                 print(' '.join(str(x) for x in v.astype('{kind}8[{to}]').view('i8')))"
            ),
        );
        let expected: Vec<i64> = out.split(' ').map(|x| x.parse().unwrap()).collect();
        assert_eq!(
            read(&dir.read("a.npy")),
            expected,
            "{order}{kind}8[{from}] as [{to}]"
        );
    }
}

const NAT: i64 = i64::MIN;

#[test]
fn datetime_fields_convert_exactly_as_numpy_astype() {
    // Coarser to finer: multiplied. NaT stays NaT. Negative values (before 1970) too.
    let days = [0, 1, -1, 12649, -719_162, 2_932_896, NAT];
    astype_agrees("M", "D", "s", &days, ticks::<StampS>);
    astype_agrees("M", "D", "ns", &[0, 1, -1, 12649, NAT], ticks::<StampNs>);
    astype_agrees("M", "W", "h", &[0, 5, -3, NAT], ticks::<StampH>);
    astype_agrees("M", "25ms", "us", &[0, 7, -7, NAT], ticks::<StampUs>);
    // Finer to coarser, whole values only.
    astype_agrees(
        "M",
        "s",
        "D",
        &[0, 86_400, -86_400 * 3, NAT],
        ticks::<StampD>,
    );
    astype_agrees("M", "D", "W", &[0, 7, -14, NAT], ticks::<StampW>);
    // Calendar units: months and years to days and back, through the calendar.
    let months = [0, 1, -1, 11, 12, 13, 361, -2401, 1_000_000, NAT];
    astype_agrees("M", "M", "D", &months, ticks::<StampD>);
    astype_agrees("M", "M", "s", &months, ticks::<StampS>);
    astype_agrees(
        "M",
        "Y",
        "D",
        &[0, 1, -1, 30, -400, 2_000, NAT],
        ticks::<StampD>,
    );
    astype_agrees("M", "Y", "M", &[0, 1, -1, 30, NAT], ticks::<StampM>);
    // 2000-03-01, 1969-12-01, 1600-02-01 (a leap year), 2100-03-01 (not one)
    let firsts = [11_017, -31, -135_109, 47_541, NAT];
    astype_agrees("M", "D", "M", &firsts, ticks::<StampM>);
    astype_agrees("M", "D", "Y", &[0, 10_957, -365, NAT], ticks::<StampY>);
    astype_agrees("M", "h", "M", &[0, 744, -744, NAT], ticks::<StampM>);
}

#[test]
fn timedelta_fields_convert_exactly_as_numpy_astype() {
    astype_agrees("m", "s", "ms", &[0, 1, -1, 86_400, NAT], ticks::<SpanMs>);
    astype_agrees(
        "m",
        "us",
        "s",
        &[0, 2_000_000, -3_000_000, NAT],
        ticks::<SpanS>,
    );
    astype_agrees("m", "7D", "D", &[0, 1, -2, NAT], ticks::<SpanD>);
    astype_agrees("m", "Y", "M", &[0, 1, -2, NAT], ticks::<SpanM>);
    astype_agrees("m", "M", "Y", &[0, 12, -24, NAT], ticks::<SpanY>);
    astype_agrees("m", "ps", "as", &[0, 5, -5, NAT], ticks::<SpanAs>);
}

#[test]
fn a_value_between_units_is_an_error_naming_record_and_field() {
    let dir = Scratch::new("record-times-inexact");
    numpy(
        &dir.0,
        "a = np.zeros(3, dtype=[('t', '<M8[s]')])\n\
         a['t'] = np.array([86_400, 0, 86_401]).view('M8[s]')\n\
         np.save(d + '/a.npy', a)\n\
         m = np.zeros(2, dtype=[('t', '<M8[D]')]); m['t'] = np.array([0, 14]).view('M8[D]')\n\
         np.save(d + '/mid.npy', m)",
    );
    let err =
        ndnpy::Error::from(ndnpy::read_npy::<_, Array1<StampD>>(dir.path("a.npy")).unwrap_err());
    assert_eq!(err.kind(), ErrorKind::InvalidData);
    assert_eq!(err.record_index(), Some(2));
    assert_eq!(err.field(), Some("t"));
    assert_eq!(err.fault(), Some(ndnpy::Fault::InvalidValue), "{err}");
    // 1970-01-15 is not the first of a month.
    let err =
        ndnpy::Error::from(ndnpy::read_npy::<_, Array1<StampM>>(dir.path("mid.npy")).unwrap_err());
    assert_eq!(
        (err.kind(), err.record_index()),
        (ErrorKind::InvalidData, Some(1))
    );
}

#[test]
fn a_value_that_overflows_the_declared_unit_is_an_error_not_a_wrap() {
    let dir = Scratch::new("record-times-overflow");
    // numpy's astype wraps this silently: (2**62 days).astype('M8[s]') is garbage.
    numpy(
        &dir.0,
        "a = np.zeros(2, dtype=[('t', '>M8[D]')])\n\
         a['t'] = np.array([1, 2**62]).view('M8[D]')\n\
         np.save(d + '/a.npy', a)",
    );
    let err =
        ndnpy::Error::from(ndnpy::read_npy::<_, Array1<StampS>>(dir.path("a.npy")).unwrap_err());
    assert_eq!(
        (err.kind(), err.record_index()),
        (ErrorKind::InvalidData, Some(1))
    );
    assert_eq!(err.fault(), Some(ndnpy::Fault::InvalidValue), "{err}");
    // Nor may a value become NaT: i64::MIN + 1 seconds is fine, in ms it overflows.
    let a = array![StampS {
        t: DatetimeIn::new(i64::MIN + 1)
    }];
    let mut file = Vec::new();
    a.write_npy(&mut file).unwrap();
    assert_eq!(Array1::<StampS>::read_npy(&file[..]).unwrap(), a);
    let err = Array1::<StampMs>::read_npy(&file[..]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidData);
}

#[test]
fn timedeltas_in_months_do_not_convert_to_days() {
    let dir = Scratch::new("record-times-months");
    numpy(
        &dir.0,
        "np.save(d + '/a.npy', np.zeros(1, dtype=[('t', '<m8[M]')]))\n\
         np.save(d + '/f.npy', np.zeros(1, dtype=[('t', '<f8')]))",
    );
    let err =
        ndnpy::Error::from(ndnpy::read_npy::<_, Array1<SpanD>>(dir.path("a.npy")).unwrap_err());
    assert_eq!(err.fault(), Some(ndnpy::Fault::FieldType), "{err}");
    // A datetime is not a timedelta, nor a float a datetime.
    let err =
        ndnpy::Error::from(ndnpy::read_npy::<_, Array1<StampM>>(dir.path("a.npy")).unwrap_err());
    assert_eq!(err.kind(), ErrorKind::DType);
    let err =
        ndnpy::Error::from(ndnpy::read_npy::<_, Array1<StampD>>(dir.path("f.npy")).unwrap_err());
    assert_eq!(err.kind(), ErrorKind::DType);
}

#[test]
fn generic_unit_fields_keep_the_count_as_numpy_casts_them() {
    let dir = Scratch::new("record-times-generic");
    let out = numpy(
        &dir.0,
        "a = np.zeros(2, dtype=[('t', '<m8')]); a['t'] = np.array([5, 'NaT'], dtype='m8')\n\
         np.save(d + '/a.npy', a)\n\
         print(' '.join(str(x) for x in a['t'].astype('m8[s]').view('i8')))",
    );
    let a: Array1<SpanS> = ndnpy::read_npy(dir.path("a.npy")).unwrap();
    let got: Vec<String> = a.iter().map(|s| s.t.value.to_string()).collect();
    assert_eq!(got.join(" "), out);
}
