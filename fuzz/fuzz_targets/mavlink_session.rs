//! libFuzzer entry for [`alpha3_fuzz_targets::mavlink_session`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alpha3_fuzz_targets::mavlink_session::run(data));
