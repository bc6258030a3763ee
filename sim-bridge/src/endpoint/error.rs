//! Why an endpoint could not start or stopped.

/// An endpoint failure: bad options, or a transport that would not open or broke.
#[derive(Debug, thiserror::Error)]
pub enum EndpointError {
    #[error("endpoint options: {0}")]
    Config(String),
    #[error("cannot open {what}: {source}")]
    Open {
        what: String,
        source: std::io::Error,
    },
    #[error("the endpoint task stopped: {0}")]
    Stopped(String),
}
