//! libFuzzer entry for [`alpha3_fuzz_targets::mission_protocol`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alpha3_fuzz_targets::mission_protocol::run(data));
