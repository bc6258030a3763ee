//! The slice policy: given the link and an action's class, send now, switch slice first,
//! buffer, or defer. Control goes on URLLC and is never held back; bulk sensing goes on eMBB
//! (URLLC also fits) and is deferred under hard conditions; monitoring fits any slice.

use super::monitor::{LinkCondition, LinkState};
use super::sample::Slice;
use crate::protocol::ToolClass;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// What to do with one action now. Serialized as one string, as the record has always
/// written it: `send_now`, `switch_first:<slice>` (the slice's published spelling), `buffer`,
/// `defer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum SliceDecision {
    /// Send on the current slice.
    SendNow,
    /// Switch the link to this slice, then send.
    SwitchFirst(Slice),
    /// Keep it queued; send when the link is back.
    Buffer,
    /// Do not send it in this state; the agent is told it was deferred.
    Defer,
}

const SWITCH_FIRST: &str = "switch_first:";

impl fmt::Display for SliceDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SliceDecision::SendNow => f.write_str("send_now"),
            SliceDecision::SwitchFirst(s) => write!(f, "{SWITCH_FIRST}{s}"),
            SliceDecision::Buffer => f.write_str("buffer"),
            SliceDecision::Defer => f.write_str("defer"),
        }
    }
}

/// A string that is no [`SliceDecision`]'s spelling.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a slice decision: `{0}`")]
pub struct UnknownSliceDecision(pub String);

impl FromStr for SliceDecision {
    type Err = UnknownSliceDecision;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let slice = |name: &str| Slice::ALL.into_iter().find(|s| s.as_str() == name);
        match text {
            "send_now" => Ok(SliceDecision::SendNow),
            "buffer" => Ok(SliceDecision::Buffer),
            "defer" => Ok(SliceDecision::Defer),
            _ => text
                .strip_prefix(SWITCH_FIRST)
                .and_then(slice)
                .map(SliceDecision::SwitchFirst)
                .ok_or_else(|| UnknownSliceDecision(text.to_string())),
        }
    }
}

impl From<SliceDecision> for String {
    fn from(d: SliceDecision) -> Self {
        d.to_string()
    }
}

impl TryFrom<String> for SliceDecision {
    type Error = UnknownSliceDecision;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

/// Telemetry stream rates the link can afford (MAV_CMD_SET_MESSAGE_INTERVAL on a real link).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TelemetryProfile {
    Full,
    /// Lower rates under hard conditions; restored when the link recovers.
    Reduced,
}

/// Decides for one action of `class` under `link`.
pub fn decide(class: ToolClass, link: &LinkState) -> SliceDecision {
    match (link.condition, class) {
        // A lost link carries nothing; the watchdog takes over the vehicle.
        (LinkCondition::Lost, ToolClass::Monitoring) => SliceDecision::SendNow,
        (LinkCondition::Lost, _) => SliceDecision::Buffer,
        (_, ToolClass::ControlCritical) if link.slice != Slice::Urllc => {
            SliceDecision::SwitchFirst(Slice::Urllc)
        }
        (_, ToolClass::ControlCritical) => SliceDecision::SendNow,
        (LinkCondition::Hard, ToolClass::Sensing) => SliceDecision::Defer,
        (LinkCondition::Good, ToolClass::Sensing) if !class.fits_slice(link.slice) => {
            SliceDecision::SwitchFirst(Slice::Embb)
        }
        (_, ToolClass::Sensing) | (_, ToolClass::Monitoring) => SliceDecision::SendNow,
    }
}

/// Telemetry rates for `link`.
pub fn telemetry_profile(link: &LinkState) -> TelemetryProfile {
    match link.condition {
        LinkCondition::Good => TelemetryProfile::Full,
        LinkCondition::Hard | LinkCondition::Lost => TelemetryProfile::Reduced,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decision_keeps_the_recorded_spelling() {
        let all = [
            (SliceDecision::SendNow, "send_now"),
            (
                SliceDecision::SwitchFirst(Slice::Urllc),
                "switch_first:URLLC",
            ),
            (SliceDecision::SwitchFirst(Slice::Embb), "switch_first:eMBB"),
            (SliceDecision::SwitchFirst(Slice::Mmtc), "switch_first:mMTC"),
            (SliceDecision::Buffer, "buffer"),
            (SliceDecision::Defer, "defer"),
        ];
        for (d, text) in all {
            assert_eq!(serde_json::to_value(d).unwrap(), text);
            assert_eq!(
                serde_json::from_value::<SliceDecision>(text.into()).unwrap(),
                d
            );
        }
        for bad in ["send", "switch_first:", "switch_first:urllc", "defer "] {
            assert!(bad.parse::<SliceDecision>().is_err(), "{bad}");
        }
    }

    fn link(condition: LinkCondition, slice: Slice) -> LinkState {
        LinkState {
            condition,
            slice,
            last: None,
            last_at_ms: None,
        }
    }

    #[test]
    fn control_goes_on_urllc_and_is_never_deferred() {
        use LinkCondition::*;
        assert_eq!(
            decide(ToolClass::ControlCritical, &link(Good, Slice::Urllc)),
            SliceDecision::SendNow
        );
        assert_eq!(
            decide(ToolClass::ControlCritical, &link(Hard, Slice::Urllc)),
            SliceDecision::SendNow
        );
        assert_eq!(
            decide(ToolClass::ControlCritical, &link(Good, Slice::Embb)),
            SliceDecision::SwitchFirst(Slice::Urllc)
        );
        assert_eq!(
            decide(ToolClass::ControlCritical, &link(Hard, Slice::Mmtc)),
            SliceDecision::SwitchFirst(Slice::Urllc)
        );
        assert_eq!(
            decide(ToolClass::ControlCritical, &link(Lost, Slice::Urllc)),
            SliceDecision::Buffer
        );
    }

    #[test]
    fn sensing_is_deferred_when_hard_and_moved_off_mmtc() {
        use LinkCondition::*;
        assert_eq!(
            decide(ToolClass::Sensing, &link(Hard, Slice::Embb)),
            SliceDecision::Defer
        );
        assert_eq!(
            decide(ToolClass::Sensing, &link(Good, Slice::Embb)),
            SliceDecision::SendNow
        );
        assert_eq!(
            decide(ToolClass::Sensing, &link(Good, Slice::Urllc)),
            SliceDecision::SendNow
        );
        assert_eq!(
            decide(ToolClass::Sensing, &link(Good, Slice::Mmtc)),
            SliceDecision::SwitchFirst(Slice::Embb)
        );
    }

    #[test]
    fn monitoring_goes_anywhere_and_telemetry_shrinks_when_hard() {
        for c in [
            LinkCondition::Good,
            LinkCondition::Hard,
            LinkCondition::Lost,
        ] {
            assert_eq!(
                decide(ToolClass::Monitoring, &link(c, Slice::Mmtc)),
                SliceDecision::SendNow
            );
        }
        assert_eq!(
            telemetry_profile(&link(LinkCondition::Hard, Slice::Urllc)),
            TelemetryProfile::Reduced
        );
        assert_eq!(
            telemetry_profile(&link(LinkCondition::Good, Slice::Urllc)),
            TelemetryProfile::Full
        );
    }

    #[test]
    fn every_decision_puts_the_action_on_a_fitting_slice_or_holds_it() {
        use LinkCondition::*;
        for class in [
            ToolClass::ControlCritical,
            ToolClass::Sensing,
            ToolClass::Monitoring,
        ] {
            for cond in [Good, Hard, Lost] {
                for slice in Slice::ALL {
                    let ok = match decide(class, &link(cond, slice)) {
                        SliceDecision::SendNow => class.fits_slice(slice),
                        SliceDecision::SwitchFirst(s) => class.fits_slice(s),
                        SliceDecision::Buffer | SliceDecision::Defer => {
                            class != ToolClass::Monitoring
                        }
                    };
                    assert!(ok, "{class:?} {cond:?} {slice:?}");
                }
            }
        }
    }
}
