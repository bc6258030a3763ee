//! The checks: each file reports the findings of one concern from an [`Input`] and decides
//! nothing else (no substitution, no verdict). [`CHECKS`] is the one table of them, in the
//! order they run (and report, within a severity); [`CHECK_ORDER`] is its names.
//!
//! Besides the table: `state::invalid` and `unreported` admit a command before it is planned,
//! `altitude::target` reports an out-of-band target before the path, and the geometry of
//! `altitude`, `geofence`, `no_fly`, `separation` and `energy` also answers `breach_s`: when
//! the coasting vehicle would cross that limit (for `time_to_breach` and the hold
//! substitution).

pub(crate) mod altitude;
pub(crate) mod energy;
pub(crate) mod geofence;
mod input;
pub(crate) mod no_fly;
pub(crate) mod rate;
pub(crate) mod separation;
pub(crate) mod site;
pub(crate) mod state;
pub(crate) mod unreported;

pub(crate) use input::Input;

use crate::gate::verdict::Findings;

/// One check: reports what it finds about `Input` into the findings.
pub(crate) type Check = fn(&Input<'_>, &mut Findings);

/// Every check with its name, in the order they run.
pub(crate) const CHECKS: [(&str, Check); 8] = [
    ("state", state::check),
    ("rate", rate::check),
    ("altitude", altitude::check),
    ("site", site::check),
    ("geofence", geofence::check),
    ("no_fly", no_fly::check),
    ("separation", separation::check),
    ("energy", energy::check),
];

/// The names of the checks in the order they run (and report, within a severity).
pub const CHECK_ORDER: [&str; CHECKS.len()] = {
    let mut names = [""; CHECKS.len()];
    let mut i = 0;
    while i < CHECKS.len() {
        names[i] = CHECKS[i].0;
        i += 1;
    }
    names
};

/// Runs every check of [`CHECKS`] on `input`.
pub(crate) fn run(input: &Input<'_>, out: &mut Findings) {
    for (_, check) in CHECKS {
        check(input, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_is_the_table_s() {
        assert_eq!(
            CHECK_ORDER,
            [
                "state",
                "rate",
                "altitude",
                "site",
                "geofence",
                "no_fly",
                "separation",
                "energy",
            ]
        );
    }
}
