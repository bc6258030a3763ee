//! What every transfer step needs from the client: who talks, the timing, the autopilot
//! family, and where to put the frames it sends.

use super::messages::Ends;
use super::outbox::Outbox;
use super::timing::MissionTiming;
use crate::profile::Profile;

#[derive(Debug)]
pub(super) struct Ctx<'a> {
    pub(super) ends: Ends,
    pub(super) timing: MissionTiming,
    pub(super) profile: Profile,
    pub(super) out: &'a mut Outbox,
}
