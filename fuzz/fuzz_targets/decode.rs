//! `cargo fuzz run decode`: see decode_check.rs.
#![no_main]

mod decode_check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| decode_check::check(data));
