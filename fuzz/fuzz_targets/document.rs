//! libFuzzer entry for [`alpha3_fuzz_targets::document`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alpha3_fuzz_targets::document::run(data));
