//! Documented exit codes of the `alpha3` command.

use std::process::ExitCode;

/// Success.
pub const OK: u8 = 0;
/// The input was checked and found wrong (invalid file, failed validation, refused flight).
pub const INVALID: u8 = 1;
/// Bad command line (clap's own usage errors also exit with 2).
pub const USAGE: u8 = 2;
/// A runtime failure: I/O, a dead link, an internal error.
pub const FAILURE: u8 = 3;

/// The exit-code table, as `--help` prints it.
pub const TABLE: &str = "Exit codes:\n  0  success\n  1  invalid input (validation failed, bad file, flight refused)\n  2  usage error\n  3  runtime failure (I/O, link, internal)";

pub fn code(c: u8) -> ExitCode {
    ExitCode::from(c)
}
