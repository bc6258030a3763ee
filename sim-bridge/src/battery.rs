//! The battery: energy drawn by the scenario's power model,
//! P = hover + k_drag·v³ + k_manoeuvre·|a| (v airspeed, a commanded acceleration), plus the
//! power of active payloads, and the sag a `battery_sag` fault causes.

use alpha3_core::scenario::Airframe;

/// Cells of the pack used for the voltage estimate (6S Li-ion).
const CELLS: f64 = 6.0;
/// Hover power when the scenario gives no model: 120 W per kg (a typical multicopter).
const DEFAULT_HOVER_W_PER_KG: f64 = 120.0;

#[derive(Debug, Clone)]
pub struct Battery {
    capacity_j: f64,
    energy_j: f64,
    hover_w: f64,
    k_drag: f64,
    k_manoeuvre: f64,
    /// Multiplies the flight power (motor failure, battery sag raise it).
    power_factor: f64,
    last_power_w: f64,
}

impl Battery {
    pub fn new(uav: &Airframe) -> Self {
        let (hover_w, k_drag, k_manoeuvre) = match &uav.battery_model {
            Some(m) => (m.hover_power_w, m.k_drag, m.k_manoeuvre),
            None => (DEFAULT_HOVER_W_PER_KG * uav.mass_kg, 0.1, 20.0),
        };
        let capacity_j = uav.battery_wh * 3600.0;
        Self {
            capacity_j,
            energy_j: capacity_j,
            hover_w,
            k_drag,
            k_manoeuvre,
            power_factor: 1.0,
            last_power_w: 0.0,
        }
    }

    /// Flight power at airspeed `v_mps` and acceleration magnitude `a_mps2`, plus `extra_w`.
    pub fn flight_power_w(&self, v_mps: f64, a_mps2: f64, extra_w: f64) -> f64 {
        (self.hover_w + self.k_drag * v_mps * v_mps * v_mps + self.k_manoeuvre * a_mps2)
            * self.power_factor
            + extra_w
    }

    /// Draws `power_w` for `dt_s` seconds.
    pub fn drain(&mut self, power_w: f64, dt_s: f64) {
        self.last_power_w = power_w;
        self.energy_j = (self.energy_j - power_w * dt_s).max(0.0);
    }

    /// Loses `fraction` of the capacity at once and draws `1 + extra_factor` times the power
    /// from now on (a damaged cell: less charge, more internal loss).
    pub fn sag(&mut self, fraction: f64, extra_factor: f64) {
        self.energy_j = (self.energy_j - fraction.clamp(0.0, 1.0) * self.capacity_j).max(0.0);
        self.power_factor *= 1.0 + extra_factor.max(0.0);
    }

    /// Multiplies flight power by `factor` (a failing motor works the others harder).
    pub fn scale_power(&mut self, factor: f64) {
        self.power_factor *= factor.max(1.0);
    }

    pub fn energy_wh(&self) -> f64 {
        self.energy_j / 3600.0
    }

    pub fn capacity_wh(&self) -> f64 {
        self.capacity_j / 3600.0
    }

    /// Remaining charge, 0..1.
    pub fn fraction(&self) -> f64 {
        if self.capacity_j > 0.0 {
            self.energy_j / self.capacity_j
        } else {
            0.0
        }
    }

    pub fn is_empty(&self) -> bool {
        self.energy_j <= 0.0
    }

    /// Pack voltage: 3.3–4.2 V per cell with charge, less a 20 mΩ-per-cell drop under load.
    pub fn voltage_v(&self) -> f64 {
        let open = CELLS * (3.3 + 0.9 * self.fraction());
        (open - self.current_for(open) * 0.02 * CELLS).max(0.0)
    }

    pub fn current_a(&self) -> f64 {
        self.current_for(CELLS * (3.3 + 0.9 * self.fraction()))
    }

    fn current_for(&self, volts: f64) -> f64 {
        if volts > 0.0 {
            self.last_power_w / volts
        } else {
            0.0
        }
    }

    /// Power drawn in the last step, watts.
    pub fn power_w(&self) -> f64 {
        self.last_power_w
    }

    pub fn hover_power_w(&self) -> f64 {
        self.hover_w * self.power_factor
    }
}
