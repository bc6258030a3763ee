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

/// Why a command ends: its exit code and what it prints, each line after the command's name.
/// Every command that stops for a reason it can name ends through one of these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stop {
    pub code: u8,
    pub lines: Vec<String>,
}

impl Stop {
    /// Prints the lines after `command` (`alpha3 fly`) and gives the exit code.
    pub fn report(&self, command: &str) -> ExitCode {
        for line in &self.lines {
            eprintln!("{command}: {line}");
        }
        code(self.code)
    }

    /// The input was wrong (exit 1).
    pub fn invalid(line: impl Into<String>) -> Self {
        Self {
            code: INVALID,
            lines: vec![line.into()],
        }
    }

    /// Bad command line (exit 2).
    pub fn usage(line: impl Into<String>) -> Self {
        Self {
            code: USAGE,
            lines: vec![line.into()],
        }
    }

    /// A runtime failure (exit 3).
    pub fn failure(line: impl Into<String>) -> Self {
        Self {
            code: FAILURE,
            lines: vec![line.into()],
        }
    }

    /// Ends a command whose body can only stop: the exit code it gave, or its stop reported
    /// under `command`.
    pub fn end(command: &str, body: Result<ExitCode, Stop>) -> ExitCode {
        body.unwrap_or_else(|stop| stop.report(command))
    }
}

/// Why a command's body did not finish: a [`Stop`] it can name, reported under the command's
/// name, or an error it cannot, which `main` reports as `alpha3: error: …` (exit 3).
#[derive(Debug)]
pub enum Halt {
    Stop(Stop),
    Error(anyhow::Error),
}

impl From<Stop> for Halt {
    fn from(stop: Stop) -> Self {
        Self::Stop(stop)
    }
}

impl<E: Into<anyhow::Error>> From<E> for Halt {
    fn from(e: E) -> Self {
        Self::Error(e.into())
    }
}

impl Halt {
    /// Ends a command's body: the exit code it gave, or its stop reported under `command`;
    /// an error goes on to `main`.
    pub fn end(command: &str, body: Result<ExitCode, Halt>) -> anyhow::Result<ExitCode> {
        match body {
            Ok(code) => Ok(code),
            Err(Halt::Stop(stop)) => Ok(stop.report(command)),
            Err(Halt::Error(e)) => Err(e),
        }
    }
}
