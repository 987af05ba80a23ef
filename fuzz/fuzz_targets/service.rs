//! `cargo fuzz run service`: see service_check.rs.
#![no_main]

mod service_check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| service_check::check(data));
