//! The async shell around [`Session`](crate::session::Session): transports by address, the
//! link task with reconnection, and [`HilLink`].

mod clock;
mod driver;
mod foreign_log;
mod link;
mod ready;
mod simulator_watch;
mod transport;

pub use driver::LinkStatus;
pub use link::{ConnectOptions, DownloadedPlan, HilLink};
pub use ready::{ReadyToFly, ready_to_fly, wait_ready_to_fly};
pub use transport::{Transport, open};
