//! The descr parser on arbitrary text: what parses formats back to text that parses to the
//! same dtype, and formatting is a fixed point.
#![no_main]
use libfuzzer_sys::fuzz_target;
use ndnpy::DType;

fuzz_target!(|text: &str| {
    if let Ok(d) = DType::from_descr(text) {
        let s = d.descr();
        let again = DType::from_descr(&s).expect("a descr we wrote must parse");
        assert_eq!(again, d);
        assert_eq!(again.descr(), s);
    }
});
