//! libFuzzer entry for [`alpha3_fuzz_targets::plan_mission`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| alpha3_fuzz_targets::plan_mission::run(data));
