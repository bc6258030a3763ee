//! libFuzzer entry for [`alpha3_fuzz_targets::turn_parser`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alpha3_fuzz_targets::turn_parser::run(data));
