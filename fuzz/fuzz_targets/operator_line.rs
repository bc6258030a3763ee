//! libFuzzer entry for [`alpha3_fuzz_targets::operator_line`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alpha3_fuzz_targets::operator_line::run(data));
