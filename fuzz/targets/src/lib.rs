//! The bodies of alpha3's fuzz targets, as plain functions of the input bytes.
//!
//! Each target feeds untrusted input to one parser or state machine and checks what must hold
//! whatever the input: no panic, and the target's own invariants (a parsed value survives a
//! write-and-read round trip, a session's snapshot stays finite…). A broken invariant panics,
//! which is what the fuzzer reports as a crash. `cargo fuzz` calls them from `fuzz_targets/`;
//! the test suite replays the checked-in corpus (`fuzz/corpus/<target>/`) through [`TARGETS`].

pub mod a2a;
pub mod bytes;
pub mod config;
pub mod document;
pub mod episode;
pub mod mavlink_session;
pub mod mission_file;
pub mod mission_protocol;
pub mod operator_line;
pub mod plan_mission;
pub mod record;
pub mod scenario_rules;
mod scoring;
pub mod translate;
pub mod turn_parser;

/// A fuzz target: its name (the `fuzz/corpus/` folder) and its body.
pub type Target = (&'static str, fn(&[u8]));

/// Every target, by the name of its corpus folder.
pub const TARGETS: &[Target] = &[
    ("turn_parser", turn_parser::run),
    ("mavlink_session", mavlink_session::run),
    ("translate", translate::run),
    ("config", config::run),
    ("record", record::run),
    ("episode", episode::run),
    ("document", document::run),
    ("operator_line", operator_line::run),
    ("scenario_rules", scenario_rules::run),
    ("mission_file", mission_file::run),
    ("mission_protocol", mission_protocol::run),
    ("plan_mission", plan_mission::run),
    ("a2a", a2a::run),
];
