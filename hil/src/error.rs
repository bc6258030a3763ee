//! Typed errors of the `hil` crate.

use alpha3_core::vehicle::LinkError;

/// Why `hil` could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum HilError {
    #[error("bad link configuration: {0}")]
    Config(String),
    #[error("signing key: {0}")]
    SigningKey(String),
    #[error("cannot open {address}: {source}")]
    Open {
        address: String,
        #[source]
        source: std::io::Error,
    },
    #[error("link I/O on {address}: {source}")]
    Io {
        address: String,
        #[source]
        source: std::io::Error,
    },
    #[error("no autopilot heartbeat on {address} within {timeout_ms} ms")]
    NoAutopilot { address: String, timeout_ms: u64 },
    #[error("autopilot not ready within {timeout_ms} ms: {missing}")]
    NotReady { missing: String, timeout_ms: u64 },
    #[error("preflight refused: {0}")]
    PreflightRefused(String),
    #[error("cannot translate {command}: {reason}")]
    Translate {
        command: &'static str,
        reason: String,
    },
    #[error("a command is already in flight ({0})")]
    Busy(&'static str),
    #[error("the link task has stopped")]
    Stopped,
    #[error(
        "refusing to write {class} parameter {name}: the config must name it in [link] param_writes"
    )]
    ParamWriteRefused { name: String, class: &'static str },
    #[error("parameter {name}: {reason}")]
    Param { name: String, reason: String },
    /// A mission, fence or rally transfer could not start or did not finish.
    #[error("mission protocol: {0}")]
    Mission(crate::mission::MissionError),
    /// The link was told to fly simulators only, and this autopilot is not proven one.
    #[error("not proven a simulator: {0}")]
    NotSimulated(String),
}

impl From<HilError> for LinkError {
    fn from(e: HilError) -> Self {
        match e {
            HilError::Open { .. } | HilError::NoAutopilot { .. } | HilError::Stopped => {
                LinkError::Disconnected(e.to_string())
            }
            HilError::Io { .. } => LinkError::Io(e.to_string()),
            HilError::PreflightRefused(reason) => LinkError::Refused {
                what: "flight".into(),
                reason,
            },
            HilError::Translate { command, reason } => LinkError::Refused {
                what: command.into(),
                reason,
            },
            HilError::NotSimulated(reason) => LinkError::Refused {
                what: "commands".into(),
                reason: format!("not proven a simulator: {reason}"),
            },
            HilError::NotReady { .. }
            | HilError::Config(_)
            | HilError::SigningKey(_)
            | HilError::Busy(_)
            | HilError::ParamWriteRefused { .. }
            | HilError::Param { .. }
            | HilError::Mission(_) => LinkError::Refused {
                what: "command".into(),
                reason: e.to_string(),
            },
        }
    }
}
