//! The configuration sections. Units are in key names; unknown keys are errors.

use crate::link::HardThresholds;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A configuration file: any subset of the sections.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vehicle: Option<VehicleProfile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<Limits>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slices: Option<SliceProfiles>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<PolicyConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<LinkConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watchdog: Option<WatchdogConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<RecordConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bench: Option<BenchSuite>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forecast: Option<Forecast>,
}

/// The wind a plan is checked and flown in. A QGroundControl plan or a `.waypoints` file
/// carries no weather, so without this section the gate judges a plan in still air.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Forecast {
    /// Mean wind speed.
    pub wind_mps: f64,
    /// Where the wind blows from, degrees clockwise from true north (as a METAR gives it).
    pub wind_from_deg: f64,
    /// Gusts above the mean.
    #[serde(default)]
    pub gust_mps: f64,
}

/// The airframe: limits and the energy model (power = hover + k_drag·v³ + k_manoeuvre·|a|).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VehicleProfile {
    pub name: String,
    /// quadrotor, hexarotor, …
    pub frame: String,
    pub mass_kg: f64,
    pub max_speed_mps: f64,
    pub cruise_speed_mps: f64,
    pub max_climb_mps: f64,
    pub max_descent_mps: f64,
    pub max_accel_mps2: f64,
    pub max_yaw_rate_dps: f64,
    pub battery_capacity_wh: f64,
    pub hover_power_w: f64,
    /// Drag power coefficient, W/(m/s)³.
    pub drag_power_w_per_mps3: f64,
    /// Manoeuvre power coefficient, W/(m/s²).
    pub manoeuvre_power_w_per_mps2: f64,
}

/// The safety policy the gate enforces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Lowest altitude above ground while airborne (outside take-off and landing).
    pub min_altitude_m: f64,
    pub max_altitude_m: f64,
    /// Altitude for return-to-home; must lie inside the band.
    pub return_altitude_m: f64,
    /// Battery that must remain after reaching the target and then home.
    pub reserve_battery_pct: f64,
    /// Below this the battery is in hard violation (SP `v_bat`).
    pub hard_reserve_battery_pct: f64,
    pub min_separation_m: f64,
    /// Added to every distance check (GNSS error, tracking error).
    pub position_uncertainty_m: f64,
    pub max_commands_per_s: f64,
    /// Clamp an out-of-band altitude into the band instead of denying it.
    pub clamp_altitude: bool,
}

/// The link's slice profiles and the thresholds of the hard state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SliceProfiles {
    pub hard: HardThresholds,
    /// Time for a slice switch to take effect.
    pub switch_delay_ms: u64,
    pub urllc: SliceProfile,
    pub embb: SliceProfile,
    pub mmtc: SliceProfile,
}

/// Good-state distributions of one slice (the world samples them; the policy expects them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SliceProfile {
    pub latency_median_ms: f64,
    pub jitter_mean_ms: f64,
    pub loss_pct: f64,
    pub throughput_mbps: f64,
    pub edge_load_mean: f64,
}

/// Which policy flies, and its backend's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PolicyConfig {
    /// A name for reports (e.g. `scripted`, `gemma3-270m`).
    pub name: String,
    pub backend: PolicyBackend,
    /// A decision not made by then counts as missed; the watchdog steps in.
    pub deadline_ms: u64,
    /// Attempts to get a schema-valid turn (ALPHA3.md: at most 3).
    pub max_attempts: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llama: Option<LlamaConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openai: Option<OpenAiConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<ReplayConfig>,
    /// How an LLM policy is steered each turn (absent: neither steering is on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steering: Option<SteeringConfig>,
}

/// Per-turn steering of an LLM policy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SteeringConfig {
    /// Narrow the turn grammar to the actions whose cheap preconditions hold now.
    #[serde(default)]
    pub gate_aware_grammar: bool,
    /// Add a compact state block (phase, position, next waypoint, battery, link, last
    /// verdicts) to each turn's prompt.
    #[serde(default)]
    pub state_block: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PolicyBackend {
    Scripted,
    Llama,
    Openai,
    Replay,
    // The two floor baselines (issue 32): take off, hold, land; and well-formed random turns.
    Hover,
    Random,
}

/// Local GGUF model through llama.cpp.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LlamaConfig {
    /// Path to the GGUF file; `model_path_env` wins when that variable is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_path_env: Option<String>,
    pub threads: u32,
    pub context_tokens: u32,
    pub batch_tokens: u32,
    pub max_completion_tokens: u32,
    /// 0 = greedy (deterministic).
    pub temperature: f64,
    pub seed: u32,
    /// How the model's inference threads are scheduled: `low` (the default: SCHED_BATCH at
    /// nice 10, below the link, gate, watchdog and recorder; needs no privileges) or `normal`
    /// (as the process, for comparing under load).
    #[serde(default, skip_serializing_if = "InferencePriority::is_low")]
    pub inference_priority: InferencePriority,
    /// How the KV cache stores keys and values: `q8_0` (the default: about half the memory of
    /// `f16`, read with flash attention) or `f16`.
    #[serde(default, skip_serializing_if = "KvCacheType::is_q8_0")]
    pub kv_cache_type: KvCacheType,
}

/// The element type of a local model's KV cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub enum KvCacheType {
    /// 8-bit blocks (34 bytes per 32 values): what a worker's 4,096-token cache needs in
    /// 40 MB instead of 75 MB with Gemma 3 270M (issue 31).
    #[default]
    #[serde(rename = "q8_0")]
    Q8_0,
    /// Half-precision floats, llama.cpp's own default.
    #[serde(rename = "f16")]
    F16,
}

impl KvCacheType {
    fn is_q8_0(&self) -> bool {
        *self == Self::Q8_0
    }

    /// The name a config gives it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Q8_0 => "q8_0",
            Self::F16 => "f16",
        }
    }
}

/// How a local model's inference threads are scheduled against the safety path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InferencePriority {
    /// Below the safety path.
    #[default]
    Low,
    /// As the process was started.
    Normal,
}

impl InferencePriority {
    fn is_low(&self) -> bool {
        *self == Self::Low
    }
}

/// An OpenAI-compatible chat-completions endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenAiConfig {
    pub base_url: String,
    /// More endpoints serving the same model (e.g. one server per GPU node): requests spread
    /// over `base_url` and these, and an endpoint that keeps failing is set aside for a while.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more_base_urls: Vec<String>,
    /// At most this many requests in flight per endpoint across every episode of the process
    /// (a llama.cpp server with one slot wants 1); unset: no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_in_flight_per_endpoint: Option<u32>,
    pub model: String,
    /// Name of the environment variable holding the API key (the key itself never appears in
    /// a config, a log or a record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    pub timeout_ms: u64,
    pub max_retries: u32,
    pub max_completion_tokens: u32,
    pub temperature: f64,
    /// The server takes llama.cpp's `grammar` field (llama.cpp's `llama-server`,
    /// llama-cpp-python's server): a steered policy's narrowed turn is sent as GBNF, the exact
    /// grammar the local backend decodes with. Otherwise the narrowed JSON schema is sent,
    /// which admits the same actions but not their order.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gbnf_grammar: bool,
}

/// Plays back the agent turns of published episodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplayConfig {
    /// A directory of α3-Bench episode files or flight records.
    pub source: String,
}

/// The flight-controller link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// `serial:/dev/ttyAMA0:921600`, `udpin:0.0.0.0:14540`, `tcpout:127.0.0.1:5760`, …
    pub connect: String,
    pub system_id: u8,
    pub component_id: u8,
    /// px4, ardupilot or auto (from the autopilot's HEARTBEAT).
    pub autopilot: AutopilotKind,
    pub heartbeat_interval_ms: u64,
    /// Also send a GCS-type heartbeat (PX4 only sends STATUSTEXT to GCS links).
    pub gcs_heartbeat: bool,
    /// Environment variable holding the 32-byte MAVLink 2 signing key (hex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signing_key_env: Option<String>,
    pub require_signing: bool,
    pub command_timeout_ms: u64,
    pub command_retries: u32,
    /// Autopilot failsafe parameters that must be on before flight (e.g. `NAV_DLL_ACT`).
    #[serde(default)]
    pub required_failsafes: Vec<String>,
    /// Autopilot parameters alpha3 writes after connecting, by name. Fence, failsafe, arming
    /// and system-id parameters are never written unless named here, one by one.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub param_writes: std::collections::BTreeMap<String, f64>,
}

impl LinkConfig {
    /// A companion computer's usual link to `connect`: system 1, component 191 (onboard
    /// computer), the autopilot told by its HEARTBEAT, a GCS heartbeat each second, unsigned,
    /// commands retried 3 times after 1.5 s — what a suite's policy without a `[link]` flies
    /// a SITL with.
    pub fn companion_defaults(connect: &str) -> Self {
        Self {
            connect: connect.into(),
            system_id: 1,
            component_id: 191,
            autopilot: AutopilotKind::Auto,
            heartbeat_interval_ms: 1000,
            gcs_heartbeat: true,
            signing_key_env: None,
            require_signing: false,
            command_timeout_ms: 1500,
            command_retries: 3,
            required_failsafes: Vec::new(),
            param_writes: Default::default(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AutopilotKind {
    Auto,
    Px4,
    Ardupilot,
}

/// What the runtime does when a decision, the LLM or the link fails.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WatchdogConfig {
    /// Steps, in order, after each further `step_interval_ms` without a valid decision.
    pub ladder: Vec<FailsafeStep>,
    pub step_interval_ms: u64,
    /// Generation failures in a row before the first step.
    pub max_generation_failures: u32,
    /// Act when the predicted time to breach falls below this.
    pub min_time_to_breach_ms: u64,
    /// Hold setpoint stream rate while a decision is pending (PX4 offboard needs > 2 Hz).
    pub hold_setpoint_hz: f64,
    /// Episode time every agent turn spans at least: its decision and dispatch. The built-in
    /// world stands still while a policy thinks, so without it a turn that moves nothing (no
    /// action, all refused or held back) would cost no time, and the ladder, a link's recovery
    /// or a world fault would never play out. A constant, so episodes stay deterministic.
    #[serde(default = "default_decision_period_ms")]
    pub decision_period_ms: u64,
    /// After an episode ends without success with the vehicle in the air, the failsafe gets
    /// this much episode time to bring it down (return and land at home, or land where it is
    /// when the gate rules the return out); 0 leaves the vehicle as it is.
    #[serde(default = "default_handover_max_ms")]
    pub handover_max_ms: u64,
}

fn default_decision_period_ms() -> u64 {
    5_000
}

fn default_handover_max_ms() -> u64 {
    600_000
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FailsafeStep {
    Hold,
    Return,
    Land,
}

/// Where and how flight records are written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordConfig {
    pub dir: String,
    /// Truth-trace downsampling interval.
    pub truth_interval_ms: u64,
    /// Keep prompts and completions in the record (large, but needed for replay).
    pub keep_prompts: bool,
}

/// A benchmark suite: scenarios × seeds × policies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BenchSuite {
    pub name: String,
    /// Scenario files or directories, relative to this file.
    pub scenarios: Vec<String>,
    /// Use at most this many scenarios (in name order); all when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_scenarios: Option<u32>,
    pub seeds: Vec<u64>,
    /// Policy config files, relative to this file.
    pub policies: Vec<String>,
    /// Episodes run at once.
    pub concurrency: u32,
    pub min_turns: u32,
    pub max_turns: u32,
    pub max_tokens: u64,
    pub max_tool_actions: u32,
    /// Base config (vehicle, limits, slices, watchdog) for every run, relative to this file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_config: Option<String>,
    /// Fly the floor baselines `hover` (take off, hold, land) and `random` (well-formed random
    /// turns) on the same scenarios and seeds, marked as baselines in the leaderboard and
    /// report; off unless `true` (the shipped built-in-world suites set it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baselines: Option<bool>,
}
