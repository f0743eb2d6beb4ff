//! The header parser on arbitrary bytes: any result but a panic; what parses re-encodes and
//! parses back to the same header.
#![no_main]
use libfuzzer_sys::fuzz_target;
use ndnpy::{Header, ReadOptions};

fuzz_target!(|data: &[u8]| {
    let opts = ReadOptions::new().max_header_len(1 << 16);
    if let Ok(info) = Header::read(&mut &data[..], &opts) {
        if let Ok(bytes) = info.header.to_bytes() {
            let again = Header::read(
                &mut &bytes[..],
                &ReadOptions::new().max_header_len(usize::MAX),
            )
            .expect("a header we wrote must parse");
            assert_eq!(again.header, info.header);
        }
    }
});
