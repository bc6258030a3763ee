//! The vehicle without sockets: a scripted companion talks to a [`Station`] on a virtual clock.

use super::codec::mav::{self, MavCmd, MavResult};
use super::*;
use crate::scenario::suite_scenario;
use crate::world::WorldOptions;

const GCS_SYS: u8 = 255;
const GCS_COMP: u8 = 190;

/// A world whose vehicle starts on the ground at the spawn point, perfect sensors.
fn ground_world() -> World {
    let mut s = suite_scenario(0);
    s.spawn.xyz[2] = 0.0;
    World::new(
        s,
        WorldOptions {
            sensor_noise: false,
            ..WorldOptions::seeded(1)
        },
    )
}

fn options(impairment: Impairment) -> EndpointOptions {
    let mut link = LinkOptions::onboard(EndpointTransport::Udp {
        bind: "127.0.0.1:0".parse().unwrap(),
        remote: None,
    });
    link.impairment = impairment;
    EndpointOptions::single(0, link)
}

/// A companion on a virtual clock, 1 ms per step.
struct Peer {
    station: Station,
    enc: FrameEncoder,
    dec: FrameDecoder,
    now_us: u64,
    inbox: Vec<(u64, MavMessage)>,
}

impl Peer {
    fn new(impairment: Impairment) -> Self {
        Self {
            station: Station::new(ground_world(), &options(impairment)),
            enc: FrameEncoder::new(GCS_SYS, GCS_COMP),
            dec: FrameDecoder::new(),
            now_us: 0,
            inbox: Vec::new(),
        }
    }

    fn send(&mut self, m: MavMessage) {
        let bytes = self.enc.encode(&m);
        self.station.on_bytes(self.now_us, 0, &bytes);
    }

    fn run_ms(&mut self, ms: u64) {
        let mut out = Vec::new();
        for _ in 0..ms {
            self.now_us += 1000;
            self.station.service(self.now_us, &mut out);
            for (_, bytes) in out.drain(..) {
                self.dec.push(&bytes);
                while let Some(f) = self.dec.next_frame() {
                    assert_eq!((f.header.system_id, f.header.component_id), (1, 1));
                    self.inbox.push((self.now_us, f.message));
                }
            }
        }
    }

    fn command(&mut self, command: MavCmd, p: [f32; 7]) -> MavResult {
        self.send(MavMessage::COMMAND_LONG(mav::COMMAND_LONG_DATA {
            param1: p[0],
            param2: p[1],
            param3: p[2],
            param4: p[3],
            param5: p[4],
            param6: p[5],
            param7: p[6],
            command,
            target_system: 1,
            target_component: 1,
            confirmation: 0,
        }));
        let from = self.inbox.len();
        self.run_ms(5);
        // The last: PX4 ACKs a DO_SET_MODE twice (receipt, then result).
        self.inbox[from..]
            .iter()
            .rev()
            .find_map(|(_, m)| match m {
                MavMessage::COMMAND_ACK(a) if a.command == command => Some(a.result),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no ACK for {command:?}"))
    }

    fn last_heartbeat(&self) -> mav::HEARTBEAT_DATA {
        self.inbox
            .iter()
            .rev()
            .find_map(|(_, m)| match m {
                MavMessage::HEARTBEAT(h) => Some(h.clone()),
                _ => None,
            })
            .unwrap()
    }

    fn last_global(&self) -> mav::GLOBAL_POSITION_INT_DATA {
        self.inbox
            .iter()
            .rev()
            .find_map(|(_, m)| match m {
                MavMessage::GLOBAL_POSITION_INT(g) => Some(g.clone()),
                _ => None,
            })
            .unwrap()
    }

    fn texts(&self) -> Vec<String> {
        self.inbox
            .iter()
            .filter_map(|(_, m)| match m {
                MavMessage::STATUSTEXT(t) => Some(t.text.to_str().unwrap_or("").to_string()),
                _ => None,
            })
            .collect()
    }

    /// (severity, text) of every STATUSTEXT since inbox entry `from`, chunks joined.
    fn severities_since(&self, from: usize) -> Vec<(mav::MavSeverity, String)> {
        let mut out: Vec<(mav::MavSeverity, String)> = Vec::new();
        for (_, m) in &self.inbox[from..] {
            if let MavMessage::STATUSTEXT(t) = m {
                let bytes: Vec<u8> = t.text.iter().copied().take_while(|b| *b != 0).collect();
                let text = String::from_utf8_lossy(&bytes).into_owned();
                match out.last_mut() {
                    Some(last) if t.id != 0 && t.chunk_seq > 0 => last.1.push_str(&text),
                    _ => out.push((t.severity, text)),
                }
            }
        }
        out
    }

    fn set_param(&mut self, name: &str, param_type: mav::MavParamType, value: f32) {
        self.send(MavMessage::PARAM_SET(mav::PARAM_SET_DATA {
            param_value: value,
            target_system: 1,
            target_component: 1,
            param_id: name.into(),
            param_type,
        }));
        self.run_ms(5);
    }

    /// DO_REPOSITION (COMMAND_INT) `north_m` north of `from`, at `amsl_m`.
    fn reposition_north(
        &mut self,
        from: &mav::GLOBAL_POSITION_INT_DATA,
        north_m: f64,
        amsl_m: f32,
    ) {
        let lat = from.lat + (north_m / 111_195.0 * 1e7) as i32;
        self.send(MavMessage::COMMAND_INT(mav::COMMAND_INT_DATA {
            param1: -1.0,
            param2: 1.0,
            param4: f32::NAN,
            x: lat,
            y: from.lon,
            // AMSL, whatever the frame says.
            z: amsl_m,
            command: MavCmd::MAV_CMD_DO_REPOSITION,
            target_system: 1,
            target_component: 1,
            frame: mav::MavFrame::MAV_FRAME_GLOBAL_RELATIVE_ALT,
            ..Default::default()
        }));
    }

    fn gcs_heartbeat(&mut self) {
        self.send(MavMessage::HEARTBEAT(mav::HEARTBEAT_DATA {
            mavtype: mav::MavType::MAV_TYPE_GCS,
            autopilot: mav::MavAutopilot::MAV_AUTOPILOT_INVALID,
            ..Default::default()
        }));
    }

    fn arm_when_ready(&mut self) {
        while self.command(MavCmd::MAV_CMD_COMPONENT_ARM_DISARM, arm(1.0))
            != MavResult::MAV_RESULT_ACCEPTED
        {
            assert!(self.now_us < 10_000_000, "never armed");
            self.run_ms(300);
        }
    }

    fn take_off(&mut self, above_home_m: f32) {
        let home_amsl = 488.0_f32;
        let p = [
            0.0,
            0.0,
            0.0,
            f32::NAN,
            f32::NAN,
            f32::NAN,
            home_amsl + above_home_m,
        ];
        assert_eq!(
            self.command(MavCmd::MAV_CMD_NAV_TAKEOFF, p),
            MavResult::MAV_RESULT_ACCEPTED
        );
    }
}

fn arm(p1: f32) -> [f32; 7] {
    [p1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
}

fn mode_of(h: &mav::HEARTBEAT_DATA) -> Px4Mode {
    Px4Mode {
        main: ((h.custom_mode >> 16) & 0xff) as u8,
        sub: ((h.custom_mode >> 24) & 0xff) as u8,
    }
}

#[test]
fn boots_silent_then_speaks_px4_at_px4_rates() {
    let mut p = Peer::new(Impairment::None);
    p.run_ms(1400);
    assert!(p.inbox.is_empty(), "silent before the first heartbeat");
    p.run_ms(1100);
    let h = p.last_heartbeat();
    assert_eq!(h.autopilot, mav::MavAutopilot::MAV_AUTOPILOT_PX4);
    assert_eq!(h.mavtype, mav::MavType::MAV_TYPE_QUADROTOR);
    assert_eq!(mode_of(&h), Px4Mode::HOLD);
    assert!(
        !h.base_mode
            .contains(mav::MavModeFlag::MAV_MODE_FLAG_SAFETY_ARMED)
    );
    let before = p.inbox.len();
    p.run_ms(2000);
    let rate = (p.inbox.len() - before) as f64 / 2.0;
    assert!((250.0..290.0).contains(&rate), "{rate} messages/s");
    let count = |name: &str| {
        p.inbox[before..]
            .iter()
            .filter(|(_, m)| mavlink::Message::message_name(m) == name)
            .count()
    };
    assert_eq!(count("ATTITUDE"), 200);
    assert_eq!(count("GLOBAL_POSITION_INT"), 100);
    assert!(count("HOME_POSITION") >= 1);
    // Home is where the vehicle stands, 488 m AMSL at the scenario's ground.
    let g = p.last_global();
    assert_eq!((g.alt, g.relative_alt), (488_000, 0));
}

#[test]
fn arming_is_denied_until_ready_and_said_only_to_ground_stations() {
    let mut p = Peer::new(Impairment::None);
    p.run_ms(2000);
    // Not yet, rather than no (PX4's answer while its checks still fail).
    let r = p.command(MavCmd::MAV_CMD_COMPONENT_ARM_DISARM, arm(1.0));
    assert_eq!(r, MavResult::MAV_RESULT_TEMPORARILY_REJECTED);
    assert!(p.texts().is_empty(), "no GCS heartbeat yet: no STATUSTEXT");
    p.gcs_heartbeat();
    p.run_ms(10);
    assert_eq!(
        p.command(MavCmd::MAV_CMD_COMPONENT_ARM_DISARM, arm(1.0)),
        MavResult::MAV_RESULT_TEMPORARILY_REJECTED
    );
    assert!(
        p.texts()
            .iter()
            .any(|t| t.contains("Resolve system health")),
        "{:?}",
        p.texts()
    );
    p.arm_when_ready();
    assert!(p.now_us >= 4_000_000);
    p.run_ms(1100);
    assert!(
        p.last_heartbeat()
            .base_mode
            .contains(mav::MavModeFlag::MAV_MODE_FLAG_SAFETY_ARMED)
    );
    // Idle on the ground for COM_DISARM_PRFLT (10 s): PX4 disarms.
    p.run_ms(10_500);
    assert!(
        !p.last_heartbeat()
            .base_mode
            .contains(mav::MavModeFlag::MAV_MODE_FLAG_SAFETY_ARMED)
    );
}

#[test]
fn takeoff_altitude_is_amsl_then_hold_then_land_and_disarm() {
    let mut p = Peer::new(Impairment::None);
    p.run_ms(2000);
    p.arm_when_ready();
    p.take_off(8.0);
    p.run_ms(1100);
    assert_eq!(mode_of(&p.last_heartbeat()), Px4Mode::TAKEOFF);
    p.run_ms(15_000);
    assert_eq!(mode_of(&p.last_heartbeat()), Px4Mode::HOLD);
    let g = p.last_global();
    assert!((g.relative_alt - 8000).abs() < 600, "{g:?}");
    assert!((g.alt - 496_000).abs() < 600, "{g:?}");
    assert_eq!(
        p.command(
            MavCmd::MAV_CMD_NAV_LAND,
            [0.0, 0.0, 0.0, f32::NAN, f32::NAN, f32::NAN, f32::NAN]
        ),
        MavResult::MAV_RESULT_ACCEPTED
    );
    p.run_ms(1100);
    assert_eq!(mode_of(&p.last_heartbeat()), Px4Mode::LAND);
    let landed_at = loop {
        p.run_ms(100);
        let on_ground = p.inbox.iter().rev().find_map(|(t, m)| match m {
            MavMessage::EXTENDED_SYS_STATE(e) => Some((*t, e.landed_state)),
            _ => None,
        });
        if let Some((t, mav::MavLandedState::MAV_LANDED_STATE_ON_GROUND)) = on_ground {
            break t;
        }
        assert!(p.now_us < 60_000_000, "never landed");
    };
    p.run_ms(1000);
    assert!(
        p.last_heartbeat()
            .base_mode
            .contains(mav::MavModeFlag::MAV_MODE_FLAG_SAFETY_ARMED),
        "PX4 disarms ~2 s after touch-down, not at once"
    );
    p.run_ms(1100);
    assert!(!p.station.machine().vehicle().is_armed());
    p.run_ms(1000);
    assert!(
        !p.last_heartbeat()
            .base_mode
            .contains(mav::MavModeFlag::MAV_MODE_FLAG_SAFETY_ARMED)
    );
    assert!(p.now_us > landed_at + 2_000_000);
}

#[test]
fn a_reposition_outside_the_fence_is_acknowledged_and_ignored() {
    let mut p = Peer::new(Impairment::None);
    p.gcs_heartbeat();
    p.run_ms(2000);
    assert!(
        !p.station.counters(0).unwrap().gcs_seen,
        "deaf while booting"
    );
    p.gcs_heartbeat();
    p.set_param(
        "GF_MAX_HOR_DIST",
        mav::MavParamType::MAV_PARAM_TYPE_REAL32,
        25.0,
    );
    p.arm_when_ready();
    p.take_off(6.0);
    p.run_ms(10_000);
    let before = p.last_global();
    let from = p.inbox.len();
    p.reposition_north(&before, 100.0, 494.0);
    p.run_ms(5000);
    let acked = p.inbox[from..].iter().any(|(_, m)| {
        matches!(m, MavMessage::COMMAND_ACK(a) if a.result == MavResult::MAV_RESULT_ACCEPTED)
    });
    assert!(acked);
    assert!(
        p.texts()
            .iter()
            .any(|t| t == "Reposition is outside geofence")
    );
    assert!(
        (p.last_global().lat - before.lat).abs() < 20,
        "did not move"
    );
    p.reposition_north(&before, 15.0, 494.0);
    p.run_ms(10_000);
    let after = p.last_global();
    let moved_m = f64::from(after.lat - before.lat) / 1e7 * 111_195.0;
    assert!((moved_m - 15.0).abs() < 1.0, "{moved_m}");
    assert!((after.relative_alt - 6000).abs() < 600, "z AMSL: {after:?}");
}

#[test]
fn offboard_needs_a_setpoint_stream_and_its_loss_means_hold() {
    let mut p = Peer::new(Impairment::None);
    p.run_ms(2000);
    p.gcs_heartbeat();
    p.arm_when_ready();
    p.take_off(5.0);
    p.run_ms(10_000);
    let set_mode = [1.0, 6.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let from = p.inbox.len();
    assert_eq!(
        p.command(MavCmd::MAV_CMD_DO_SET_MODE, set_mode),
        MavResult::MAV_RESULT_TEMPORARILY_REJECTED,
        "no setpoints yet"
    );
    let acks: Vec<MavResult> = p.inbox[from..]
        .iter()
        .filter_map(|(_, m)| match m {
            MavMessage::COMMAND_ACK(a) => Some(a.result),
            _ => None,
        })
        .collect();
    assert_eq!(
        acks,
        [
            MavResult::MAV_RESULT_ACCEPTED,
            MavResult::MAV_RESULT_TEMPORARILY_REJECTED
        ],
        "receipt, then the commander's answer"
    );
    assert!(
        p.severities_since(from).contains(&(
            mav::MavSeverity::MAV_SEVERITY_CRITICAL,
            "Switching to Offboard is currently not available".into()
        )),
        "{:?}",
        p.severities_since(from)
    );
    let home = p.station.machine().vehicle().home().unwrap();
    let target = home.to_ned();
    let setpoint =
        MavMessage::SET_POSITION_TARGET_LOCAL_NED(mav::SET_POSITION_TARGET_LOCAL_NED_DATA {
            x: target.north as f32 + 10.0,
            y: target.east as f32,
            z: target.down as f32 - 7.0,
            target_system: 1,
            target_component: 1,
            coordinate_frame: mav::MavFrame::MAV_FRAME_LOCAL_NED,
            type_mask: mav::PositionTargetTypemask::from_bits_truncate(0x0DF8),
            ..Default::default()
        });
    for _ in 0..20 {
        p.send(setpoint.clone());
        p.run_ms(50);
    }
    assert_eq!(
        p.command(MavCmd::MAV_CMD_DO_SET_MODE, set_mode),
        MavResult::MAV_RESULT_ACCEPTED
    );
    for _ in 0..200 {
        p.send(setpoint.clone());
        p.run_ms(50);
    }
    assert_eq!(mode_of(&p.last_heartbeat()), Px4Mode::OFFBOARD);
    let g = p.last_global();
    assert!((g.relative_alt - 7000).abs() < 600, "{g:?}");
    // The stream stops: after COM_OF_LOSS_T (1 s) PX4 holds (COM_OBL_RC_ACT 0, no RC).
    p.run_ms(900);
    assert_eq!(mode_of(&p.last_heartbeat()), Px4Mode::OFFBOARD);
    p.run_ms(1300);
    assert_eq!(mode_of(&p.last_heartbeat()), Px4Mode::HOLD);
}

#[test]
fn params_timesync_and_message_requests_answer_the_asking_link() {
    let mut p = Peer::new(Impairment::None);
    p.run_ms(3000);
    p.send(MavMessage::PARAM_REQUEST_READ(
        mav::PARAM_REQUEST_READ_DATA {
            param_index: -1,
            target_system: 1,
            target_component: 1,
            param_id: "NAV_DLL_ACT".into(),
        },
    ));
    p.send(MavMessage::TIMESYNC(mav::TIMESYNC_DATA {
        tc1: 0,
        ts1: 12345,
        target_system: 1,
        target_component: 1,
    }));
    let from = p.inbox.len();
    p.run_ms(5);
    let got = &p.inbox[from..];
    assert!(got.iter().any(|(_, m)| matches!(m,
        MavMessage::PARAM_VALUE(v) if v.param_type == mav::MavParamType::MAV_PARAM_TYPE_INT32
            && v.param_value.to_bits() == 0)));
    assert!(got.iter().any(|(_, m)| matches!(m,
        MavMessage::TIMESYNC(t) if t.ts1 == 12345 && t.tc1 > 0 && t.target_system == GCS_SYS)));
    assert_eq!(
        p.command(
            MavCmd::MAV_CMD_SET_MESSAGE_INTERVAL,
            [24.0, 100_000.0, 0.0, 0.0, 0.0, 0.0, 0.0]
        ),
        MavResult::MAV_RESULT_ACCEPTED
    );
    let from = p.inbox.len();
    p.run_ms(1000);
    let gps = p.inbox[from..]
        .iter()
        .filter(|(_, m)| matches!(m, MavMessage::GPS_RAW_INT(_)))
        .count();
    assert!((9..=11).contains(&gps), "{gps}");
    assert_eq!(
        p.command(
            MavCmd::MAV_CMD_REQUEST_MESSAGE,
            [148.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
        ),
        MavResult::MAV_RESULT_ACCEPTED
    );
    assert!(
        p.inbox
            .iter()
            .any(|(_, m)| matches!(m, MavMessage::AUTOPILOT_VERSION(_)))
    );
}

#[test]
fn a_fixed_impairment_delays_and_drops_frames() {
    let spec = ImpairmentSpec::delay_loss(30.0, 10.0);
    let mut p = Peer::new(Impairment::Fixed(spec));
    p.run_ms(1525);
    assert!(
        p.inbox.is_empty(),
        "the first heartbeat is still on its way"
    );
    p.run_ms(10_000);
    let c = p.station.counters(0).unwrap();
    let loss = 100.0 * c.down.lost as f64 / c.down.offered as f64;
    assert!((loss - 10.0).abs() < 1.5, "{loss} % of {}", c.down.offered);
    let first = p.inbox.first().map(|(t, _)| *t).unwrap();
    assert!(first >= 1_530_000, "{first}");
}

#[test]
fn a_world_driven_impairment_follows_the_network_model() {
    let mut p = Peer::new(Impairment::World { refresh_ms: 100 });
    p.run_ms(3000);
    let c = p.station.counters(0).unwrap();
    let spec = c.spec.expect("a sample was taken");
    assert!(
        spec.delay_ms > 0.0 && spec.bandwidth_bps.is_some(),
        "{spec:?}"
    );
    assert!(c.tx_frames > 0);
}

#[test]
fn ground_station_loss_triggers_nav_dll_act_and_a_battery_failure_lands() {
    let mut p = Peer::new(Impairment::None);
    p.run_ms(2000);
    p.gcs_heartbeat();
    let hold = f32::from_bits(1);
    p.set_param("NAV_DLL_ACT", mav::MavParamType::MAV_PARAM_TYPE_INT32, hold);
    p.arm_when_ready();
    p.take_off(5.0);
    for _ in 0..8 {
        p.gcs_heartbeat();
        p.run_ms(1000);
    }
    assert_eq!(
        p.command(MavCmd::MAV_CMD_NAV_RETURN_TO_LAUNCH, [0.0; 7]),
        MavResult::MAV_RESULT_ACCEPTED,
        "{:?}",
        p.texts()
    );
    p.run_ms(1100);
    assert_eq!(mode_of(&p.last_heartbeat()), Px4Mode::RTL);
    // No ground-station heartbeat for COM_DL_LOSS_T (10 s; the last came 2.1 s ago): Hold
    // (NAV_DLL_ACT 1).
    p.run_ms(7000);
    assert_eq!(mode_of(&p.last_heartbeat()), Px4Mode::RTL);
    p.run_ms(2000);
    assert_eq!(mode_of(&p.last_heartbeat()), Px4Mode::HOLD);
    assert!(p.texts().iter().any(|t| t.contains("ground station lost")));
    p.gcs_heartbeat();
    let inject = [100.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let from = p.inbox.len();
    assert_eq!(
        p.command(MavCmd::MAV_CMD_INJECT_FAILURE, inject),
        MavResult::MAV_RESULT_ACCEPTED
    );
    // As PX4 SITL: low at 1.5 s, critical at 2.5 s (COM_LOW_BAT_ACT 3: return, after
    // COM_FAIL_ACT_T in Hold), emergency at 3 s (land instead), so Land at 7.5 s.
    p.run_ms(7000);
    assert_eq!(mode_of(&p.last_heartbeat()), Px4Mode::HOLD);
    p.run_ms(1600);
    assert_eq!(mode_of(&p.last_heartbeat()), Px4Mode::LAND);
    // The charge reported is PX4's estimate of a battery forced empty.
    let remaining = p.inbox.iter().rev().find_map(|(_, m)| match m {
        MavMessage::SYS_STATUS(s) => Some(s.battery_remaining),
        _ => None,
    });
    assert_eq!(remaining, Some(1));
    let said = p.severities_since(from);
    use mav::MavSeverity::*;
    for (severity, text) in [
        (MAV_SEVERITY_CRITICAL, "Low battery"),
        (
            MAV_SEVERITY_CRITICAL,
            "Failsafe activated: entering Hold for 5 seconds",
        ),
        (MAV_SEVERITY_EMERGENCY, "Emergency battery level"),
        (MAV_SEVERITY_CRITICAL, "Failsafe activated"),
    ] {
        assert!(
            said.contains(&(severity, text.to_string())),
            "{text}: {said:?}"
        );
    }
}

#[test]
fn a_fence_breach_holds_for_com_fail_act_t_then_returns_and_disarming_goes_back_to_hold() {
    let mut p = Peer::new(Impairment::None);
    p.run_ms(2000);
    p.gcs_heartbeat();
    p.set_param(
        "RTL_RETURN_ALT",
        mav::MavParamType::MAV_PARAM_TYPE_REAL32,
        8.0,
    );
    p.arm_when_ready();
    p.take_off(6.0);
    p.run_ms(8000);
    let start = p.last_global();
    p.reposition_north(&start, 30.0, 494.0);
    p.run_ms(12_000);
    assert_eq!(mode_of(&p.last_heartbeat()), Px4Mode::HOLD);
    // GF_ACTION 3 (return; INT32, byte-wise), and a fence the vehicle is now outside.
    let action = f32::from_bits(3);
    p.set_param("GF_ACTION", mav::MavParamType::MAV_PARAM_TYPE_INT32, action);
    let from = p.inbox.len();
    p.set_param(
        "GF_MAX_HOR_DIST",
        mav::MavParamType::MAV_PARAM_TYPE_REAL32,
        20.0,
    );
    p.run_ms(4500);
    assert_eq!(mode_of(&p.last_heartbeat()), Px4Mode::HOLD, "holds first");
    p.run_ms(1500);
    assert_eq!(mode_of(&p.last_heartbeat()), Px4Mode::RTL);
    let landed = loop {
        p.run_ms(500);
        if !p.station.machine().vehicle().is_armed() {
            break p.now_us;
        }
        assert!(p.now_us < 120_000_000, "never landed");
    };
    p.run_ms(1100);
    assert!(landed > 0);
    assert_eq!(
        mode_of(&p.last_heartbeat()),
        Px4Mode::HOLD,
        "PX4 leaves Return for the last mode the user chose when it disarms"
    );
    let said = p.severities_since(from);
    use mav::MavSeverity::*;
    for (severity, text) in [
        (
            MAV_SEVERITY_CRITICAL,
            "Geofence: exceeding maximum distance to Home",
        ),
        (
            MAV_SEVERITY_CRITICAL,
            "Failsafe activated: entering Hold for 5 seconds",
        ),
        (MAV_SEVERITY_CRITICAL, "Failsafe activated"),
        (MAV_SEVERITY_INFO, "RTL: land at destination"),
        (MAV_SEVERITY_INFO, "Landing detected"),
        (MAV_SEVERITY_INFO, "Disarmed by landing"),
    ] {
        assert!(
            said.contains(&(severity, text.to_string())),
            "{text}: {said:?}"
        );
    }
    assert_eq!(
        p.command(MavCmd::MAV_CMD_COMPONENT_ARM_DISARM, arm(1.0)),
        MavResult::MAV_RESULT_ACCEPTED,
        "armable again in Hold"
    );
}

mod mission_flight;
mod plan_fence;
