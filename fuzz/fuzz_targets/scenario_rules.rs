//! libFuzzer entry for [`alpha3_fuzz_targets::scenario_rules`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alpha3_fuzz_targets::scenario_rules::run(data));
