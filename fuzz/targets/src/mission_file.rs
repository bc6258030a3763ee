//! Mission files: any bytes as a QGroundControl `.plan` and as `QGC WPL 110` text.
//!
//! Invariants: no panic; a file that reads writes back, and what was written reads back equal
//! (the round trip the readers promise).

use alpha3_core::mission_file::{ReadOptions, read_plan, read_wpl, write_plan, write_wpl};

pub fn run(data: &[u8]) {
    let options = ReadOptions::default();
    if let Ok(plan) = read_plan(data, &options) {
        match write_plan(&plan).map(|text| read_plan(text.as_bytes(), &options)) {
            Ok(Ok(again)) => assert_eq!(again, plan, "a .plan changes in a round trip"),
            Ok(Err(e)) => panic!("a written .plan does not read back: {e}"),
            Err(e) => panic!("a read .plan does not write: {e}"),
        }
    }
    if let Ok(wpl) = read_wpl(data, &options) {
        match write_wpl(&wpl).map(|text| read_wpl(text.as_bytes(), &options)) {
            Ok(Ok(again)) => assert_eq!(again, wpl, "a WPL file changes in a round trip"),
            Ok(Err(e)) => panic!("a written WPL file does not read back: {e}"),
            Err(e) => panic!("a read WPL file does not write: {e}"),
        }
    }
}
