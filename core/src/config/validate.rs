//! Cross-field rules, applied after parsing.

use super::address::Address;
use super::sections::*;
use std::fmt;

/// A broken rule, with the dotted key path that breaks it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigProblem {
    /// e.g. `limits.return_altitude_m`.
    pub path: String,
    pub rule: &'static str,
    pub message: String,
}

impl ConfigProblem {
    /// The path as a JSON pointer (`/limits/return_altitude_m`).
    pub fn pointer(&self) -> String {
        format!("/{}", self.path.replace('.', "/"))
    }
}

impl fmt::Display for ConfigProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} ({})", self.path, self.message, self.rule)
    }
}

struct Problems(Vec<ConfigProblem>);

impl Problems {
    fn push(&mut self, path: &str, rule: &'static str, message: String) {
        self.0.push(ConfigProblem {
            path: path.to_string(),
            rule,
            message,
        });
    }

    fn positive(&mut self, path: &str, v: f64) {
        if !(v.is_finite() && v > 0.0) {
            self.push(
                path,
                "positive",
                format!("must be a positive number, is {v}"),
            );
        }
    }

    fn non_negative(&mut self, path: &str, v: f64) {
        if !(v.is_finite() && v >= 0.0) {
            self.push(path, "non_negative", format!("must be ≥ 0, is {v}"));
        }
    }

    fn percent(&mut self, path: &str, v: f64) {
        if !(0.0..100.0).contains(&v) {
            self.push(path, "percent", format!("must be in [0, 100), is {v}"));
        }
    }
}

impl Config {
    /// Every rule this configuration breaks; empty when valid.
    pub fn validate(&self) -> Vec<ConfigProblem> {
        let mut p = Problems(Vec::new());
        if let Some(v) = &self.vehicle {
            vehicle(&mut p, v);
        }
        if let Some(l) = &self.limits {
            limits(&mut p, l);
        }
        if let Some(s) = &self.slices {
            slices(&mut p, s);
        }
        if let Some(pc) = &self.policy {
            policy(&mut p, pc);
        }
        if let Some(l) = &self.link {
            link(&mut p, l);
        }
        if let Some(w) = &self.watchdog {
            watchdog(&mut p, w);
        }
        if let Some(r) = &self.record {
            if r.dir.trim().is_empty() {
                p.push("record.dir", "non_empty", "must name a directory".into());
            }
            p.positive("record.truth_interval_ms", r.truth_interval_ms as f64);
        }
        if let Some(b) = &self.bench {
            bench(&mut p, b);
        }
        if let Some(f) = &self.forecast {
            forecast(&mut p, f);
        }
        cross(&mut p, self);
        p.0
    }
}

fn vehicle(p: &mut Problems, v: &VehicleProfile) {
    for (k, x) in [
        ("mass_kg", v.mass_kg),
        ("max_speed_mps", v.max_speed_mps),
        ("cruise_speed_mps", v.cruise_speed_mps),
        ("max_climb_mps", v.max_climb_mps),
        ("max_descent_mps", v.max_descent_mps),
        ("max_accel_mps2", v.max_accel_mps2),
        ("max_yaw_rate_dps", v.max_yaw_rate_dps),
        ("battery_capacity_wh", v.battery_capacity_wh),
        ("hover_power_w", v.hover_power_w),
    ] {
        p.positive(&format!("vehicle.{k}"), x);
    }
    p.non_negative("vehicle.drag_power_w_per_mps3", v.drag_power_w_per_mps3);
    p.non_negative(
        "vehicle.manoeuvre_power_w_per_mps2",
        v.manoeuvre_power_w_per_mps2,
    );
    if v.cruise_speed_mps > v.max_speed_mps {
        p.push(
            "vehicle.cruise_speed_mps",
            "within_max_speed",
            format!(
                "cruise speed {} m/s exceeds max_speed_mps {} m/s",
                v.cruise_speed_mps, v.max_speed_mps
            ),
        );
    }
}

fn limits(p: &mut Problems, l: &Limits) {
    p.non_negative("limits.min_altitude_m", l.min_altitude_m);
    p.positive("limits.max_altitude_m", l.max_altitude_m);
    if l.min_altitude_m >= l.max_altitude_m {
        p.push(
            "limits.min_altitude_m",
            "altitude_band",
            format!(
                "min_altitude_m {} must be below max_altitude_m {}",
                l.min_altitude_m, l.max_altitude_m
            ),
        );
    }
    if !(l.min_altitude_m..=l.max_altitude_m).contains(&l.return_altitude_m) {
        p.push(
            "limits.return_altitude_m",
            "return_altitude_in_band",
            format!(
                "return altitude {} m is outside the altitude band [{}, {}] m",
                l.return_altitude_m, l.min_altitude_m, l.max_altitude_m
            ),
        );
    }
    p.percent("limits.reserve_battery_pct", l.reserve_battery_pct);
    p.percent(
        "limits.hard_reserve_battery_pct",
        l.hard_reserve_battery_pct,
    );
    if l.hard_reserve_battery_pct > l.reserve_battery_pct {
        p.push(
            "limits.hard_reserve_battery_pct",
            "hard_reserve_below_reserve",
            format!(
                "hard reserve {} % must not exceed the planning reserve {} %",
                l.hard_reserve_battery_pct, l.reserve_battery_pct
            ),
        );
    }
    p.positive("limits.min_separation_m", l.min_separation_m);
    p.non_negative("limits.position_uncertainty_m", l.position_uncertainty_m);
    p.positive("limits.max_commands_per_s", l.max_commands_per_s);
}

fn slices(p: &mut Problems, s: &SliceProfiles) {
    p.positive("slices.hard.max_latency_ms", s.hard.max_latency_ms);
    p.percent("slices.hard.max_loss_pct", s.hard.max_loss_pct);
    p.non_negative(
        "slices.hard.min_throughput_mbps",
        s.hard.min_throughput_mbps,
    );
    if !(0.0..=1.0).contains(&s.hard.max_edge_load) {
        p.push(
            "slices.hard.max_edge_load",
            "fraction",
            format!("must be in [0, 1], is {}", s.hard.max_edge_load),
        );
    }
    for (name, sp) in [("urllc", &s.urllc), ("embb", &s.embb), ("mmtc", &s.mmtc)] {
        p.positive(
            &format!("slices.{name}.latency_median_ms"),
            sp.latency_median_ms,
        );
        p.non_negative(&format!("slices.{name}.jitter_mean_ms"), sp.jitter_mean_ms);
        p.percent(&format!("slices.{name}.loss_pct"), sp.loss_pct);
        p.positive(
            &format!("slices.{name}.throughput_mbps"),
            sp.throughput_mbps,
        );
        if !(0.0..=1.0).contains(&sp.edge_load_mean) {
            p.push(
                &format!("slices.{name}.edge_load_mean"),
                "fraction",
                format!("must be in [0, 1], is {}", sp.edge_load_mean),
            );
        }
    }
}

fn policy(p: &mut Problems, pc: &PolicyConfig) {
    if pc.name.trim().is_empty() {
        p.push("policy.name", "non_empty", "must name the policy".into());
    }
    p.positive("policy.deadline_ms", pc.deadline_ms as f64);
    if !(1..=3).contains(&pc.max_attempts) {
        p.push(
            "policy.max_attempts",
            "attempts_1_to_3",
            format!(
                "must be 1, 2 or 3 (the α3 protocol allows 3), is {}",
                pc.max_attempts
            ),
        );
    }
    let missing = |section: &str| format!("backend `{section}` needs a [policy.{section}] section");
    match pc.backend {
        PolicyBackend::Llama if pc.llama.is_none() => {
            p.push("policy.llama", "backend_section", missing("llama"))
        }
        PolicyBackend::Openai if pc.openai.is_none() => {
            p.push("policy.openai", "backend_section", missing("openai"))
        }
        PolicyBackend::Replay if pc.replay.is_none() => {
            p.push("policy.replay", "backend_section", missing("replay"))
        }
        _ => {}
    }
    if let Some(l) = &pc.llama {
        if l.model_path.is_none() && l.model_path_env.is_none() {
            p.push(
                "policy.llama.model_path",
                "model_source",
                "give model_path or model_path_env".into(),
            );
        }
        p.positive("policy.llama.threads", l.threads as f64);
        p.positive("policy.llama.batch_tokens", l.batch_tokens as f64);
        p.positive(
            "policy.llama.max_completion_tokens",
            l.max_completion_tokens as f64,
        );
        p.non_negative("policy.llama.temperature", l.temperature);
        if l.context_tokens < l.batch_tokens {
            p.push(
                "policy.llama.context_tokens",
                "context_holds_batch",
                format!(
                    "context_tokens {} must be at least batch_tokens {}",
                    l.context_tokens, l.batch_tokens
                ),
            );
        }
    }
    if let Some(o) = &pc.openai {
        let urls = std::iter::once(("policy.openai.base_url", &o.base_url)).chain(
            o.more_base_urls
                .iter()
                .map(|u| ("policy.openai.more_base_urls", u)),
        );
        for (key, url) in urls {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                p.push(
                    key,
                    "http_url",
                    format!("must start with http:// or https://, is `{url}`"),
                );
            }
        }
        if o.max_in_flight_per_endpoint == Some(0) {
            p.push(
                "policy.openai.max_in_flight_per_endpoint",
                "positive",
                "must be at least 1 (leave it out for no limit)".into(),
            );
        }
        p.positive("policy.openai.timeout_ms", o.timeout_ms as f64);
        p.non_negative("policy.openai.temperature", o.temperature);
    }
}

fn link(p: &mut Problems, l: &LinkConfig) {
    if let Err(e) = Address::parse(&l.connect) {
        p.push("link.connect", "address", e.to_string());
    }
    if l.system_id == 0 {
        p.push(
            "link.system_id",
            "mavlink_id",
            "0 is the broadcast id".into(),
        );
    }
    if l.component_id == 0 {
        p.push(
            "link.component_id",
            "mavlink_id",
            "0 is the broadcast id".into(),
        );
    }
    p.positive("link.heartbeat_interval_ms", l.heartbeat_interval_ms as f64);
    p.positive("link.command_timeout_ms", l.command_timeout_ms as f64);
    if l.require_signing && l.signing_key_env.is_none() {
        p.push(
            "link.require_signing",
            "signing_key",
            "require_signing needs signing_key_env".into(),
        );
    }
}

/// Above this a multirotor does not fly at all; a larger figure is a unit mistake (knots, km/h).
const MAX_FORECAST_WIND_MPS: f64 = 40.0;

fn forecast(p: &mut Problems, f: &Forecast) {
    for (path, v) in [
        ("forecast.wind_mps", f.wind_mps),
        ("forecast.gust_mps", f.gust_mps),
    ] {
        p.non_negative(path, v);
        if v > MAX_FORECAST_WIND_MPS {
            p.push(
                path,
                "wind_range",
                format!("must be at most {MAX_FORECAST_WIND_MPS} m/s, is {v}"),
            );
        }
    }
    if !(0.0..=360.0).contains(&f.wind_from_deg) {
        p.push(
            "forecast.wind_from_deg",
            "direction",
            format!("must be in [0, 360], is {}", f.wind_from_deg),
        );
    }
}

fn watchdog(p: &mut Problems, w: &WatchdogConfig) {
    if w.ladder.is_empty() {
        p.push(
            "watchdog.ladder",
            "non_empty",
            "needs at least one step".into(),
        );
    }
    p.positive("watchdog.step_interval_ms", w.step_interval_ms as f64);
    if w.hold_setpoint_hz <= 2.0 {
        p.push(
            "watchdog.hold_setpoint_hz",
            "offboard_rate",
            format!(
                "PX4 offboard needs more than 2 Hz, is {}",
                w.hold_setpoint_hz
            ),
        );
    }
}

fn bench(p: &mut Problems, b: &BenchSuite) {
    for (k, empty) in [
        ("scenarios", b.scenarios.is_empty()),
        ("seeds", b.seeds.is_empty()),
        ("policies", b.policies.is_empty()),
    ] {
        if empty {
            p.push(
                &format!("bench.{k}"),
                "non_empty",
                "must list at least one".into(),
            );
        }
    }
    p.positive("bench.concurrency", b.concurrency as f64);
    if b.min_turns == 0 || b.min_turns > b.max_turns {
        p.push(
            "bench.min_turns",
            "turn_range",
            format!(
                "need 1 ≤ min_turns ≤ max_turns, have {}..{}",
                b.min_turns, b.max_turns
            ),
        );
    }
}

/// Rules between sections.
fn cross(p: &mut Problems, c: &Config) {
    if let (Some(l), Some(v)) = (&c.limits, &c.vehicle) {
        // The gate's stopping-distance margin v²/2a must fit inside the altitude band, or no
        // descent at full rate could ever be approved near the floor.
        let stop_m = v.max_descent_mps.powi(2) / (2.0 * v.max_accel_mps2);
        if v.max_accel_mps2 > 0.0
            && stop_m + l.position_uncertainty_m >= l.max_altitude_m - l.min_altitude_m
        {
            p.push(
                "limits.max_altitude_m",
                "band_holds_stopping_distance",
                format!(
                    "the altitude band ({} m) is narrower than the vertical stopping distance plus uncertainty ({stop_m:.1} + {} m)",
                    l.max_altitude_m - l.min_altitude_m,
                    l.position_uncertainty_m
                ),
            );
        }
    }
}
