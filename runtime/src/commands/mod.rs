//! One module per subcommand (`score` lives in its own module tree).

pub mod bench;
pub mod fly;
pub mod perf;
pub mod sim_vehicle;
pub mod sitl;
pub mod validate;

use std::process::ExitCode;

/// The answer of a subcommand this build does not provide yet: a clear message and exit code 4.
#[allow(dead_code)] // every subcommand is available today; kept for the next one
pub(crate) fn unavailable(what: &str, issue: u32) -> anyhow::Result<ExitCode> {
    eprintln!("alpha3 {what}: not available in this build yet (tracked as issue #{issue})");
    Ok(crate::exit::code(crate::exit::UNAVAILABLE))
}
