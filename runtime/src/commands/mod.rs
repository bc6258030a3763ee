//! One module per subcommand (`score` lives in its own module tree).

pub mod bench;
pub mod check;
pub mod fly;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod mission_file;
pub mod perf;
mod record_place;
pub mod review;
pub mod sim_vehicle;
pub mod sitl;
pub mod swarm;
pub mod validate;

use anyhow::Context;
use std::future::Future;
use std::time::Duration;

/// Runs a subcommand's async body on a current-thread tokio runtime (one link, one episode at
/// a time: nothing to spread over threads). Tasks still running when the body returns get
/// 200 ms; stdin is read on a plain thread, which must not hold the exit up.
pub(crate) fn on_current_thread<T, E: From<anyhow::Error>>(
    body: impl Future<Output = Result<T, E>>,
) -> Result<T, E> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let out = runtime.block_on(body);
    runtime.shutdown_timeout(Duration::from_millis(200));
    out
}
