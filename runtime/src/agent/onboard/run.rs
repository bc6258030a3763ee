//! One onboard episode on a connected vehicle: the one way `fly`, `mcp --connect` and `sitl`
//! run an episode on a flight controller. The caller brings the kit — the connected vehicle,
//! the world around it, the gate, the settings, the recorder and the operator — and who decides
//! (a policy through [`crate::agent::run_episode_on`], or MCP clients); this runs it with the
//! vehicle as a [`LinkedVehicle`], records
//! what the operator said that the agent never heard, and closes the link.

use super::connect::Connected;
use super::connection::foreign_note;
use crate::agent::{LinkedVehicle, OperatorSource, Sources};
use crate::episode_setup::EpisodeSettings;
use crate::recorder::{Recorder, RecorderError};
use alpha3_core::gate::GateContext;
use alpha3_core::vehicle::VehicleLink;
use alpha3_hil::HilLink;
use alpha3_sim::World;

/// Everything an onboard episode is flown with besides who decides.
#[derive(Debug)]
pub struct OnboardKit<'r> {
    pub vehicle: Connected,
    /// The world around the vehicle (its twin), anchored where the vehicle stands.
    pub world: World,
    pub gate: GateContext,
    pub settings: EpisodeSettings,
    pub recorder: &'r mut Recorder,
    pub operator: OperatorSource,
    /// Where truth and link samples come from (`sitl`: the twin; `fly`, `mcp`: the telemetry).
    pub sources: Sources,
    /// This vehicle's end of a swarm (`fly --swarm-hub`), if it flies in one.
    pub swarm: Option<crate::swarm::SwarmMember>,
}

/// The vehicle side of one episode, as the driver sees it.
pub type OnboardVehicle = LinkedVehicle<HilLink>;

/// How an onboard episode ended, besides what its driver returned.
#[derive(Debug)]
pub struct OnboardEnd<T> {
    /// What the driver returned.
    pub driven: T,
    /// Episode time at the end, ms.
    pub end_ms: u64,
    /// Frames others than the autopilot sent, which the link dropped, in words.
    pub foreign: Option<String>,
    /// Why the link stopped flying the vehicle (an autopilot that came back unproven).
    pub refused: Option<String>,
    /// What the swarm member heard and said, when the vehicle flew in a swarm.
    pub swarm: Option<crate::swarm::SwarmReport>,
}

/// Runs `drive` on the kit's vehicle and closes up: the operator's unheard lines go to the
/// record, the link is closed. The driver's own error is returned after the link is closed.
pub async fn run_onboard<T, E>(
    kit: OnboardKit<'_>,
    drive: impl AsyncFnOnce(
        &mut OnboardVehicle,
        &mut GateContext,
        &EpisodeSettings,
        &mut Recorder,
    ) -> Result<T, E>,
) -> Result<OnboardEnd<T>, E>
where
    E: From<RecorderError>,
{
    let OnboardKit {
        vehicle,
        world,
        mut gate,
        settings,
        recorder,
        operator,
        sources,
        swarm,
    } = kit;
    let mut side = LinkedVehicle::new(vehicle.link, world, operator, sources);
    side.watch_airspace(vehicle.airspace);
    side.hand_over_route(vehicle.handed);
    side.join_swarm(swarm);
    let driven = drive(&mut side, &mut gate, &settings, recorder).await;
    let unheard = side.close_operator().await.event();
    let end_ms = side.now_ms();
    let swarm = side.swarm_report();
    let (link, _) = side.into_parts();
    let status = link.status();
    let refused = link.refusal();
    // The link is closed whatever the record says next.
    link.close().await;
    if let Some(unheard) = unheard {
        recorder.append(end_ms, unheard)?;
        recorder.flush()?;
    }
    Ok(OnboardEnd {
        driven: driven?,
        end_ms,
        foreign: foreign_note(&status),
        refused,
        swarm,
    })
}
