//! libFuzzer entry for [`alpha3_fuzz_targets::a2a`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alpha3_fuzz_targets::a2a::run(data));
