//! The vehicle's parameters and the PARAM protocol: PX4's (or ArduCopter's) defaults for the
//! failsafe and navigation parameters the endpoint acts on (and `hil` reads at preflight).
//! PX4's INT32 values travel byte-wise (the integer's bits in the float field); ArduPilot's
//! integers, of 8, 16 or 32 bits, travel as the number ("C cast").

use super::codec::{MavMessage, mav};
use mav::MavParamType;

/// A parameter value in its own type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Int(i32),
    Real(f32),
}

/// How integers travel in the float field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Encoding {
    Bytewise,
    CCast,
}

impl Value {
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Int(i) => f64::from(i),
            Value::Real(r) => f64::from(r),
        }
    }

    /// The PARAM_VALUE float field for a parameter of type `ty`.
    fn wire(self, encoding: Encoding) -> f32 {
        match (self, encoding) {
            (Value::Int(i), Encoding::Bytewise) => f32::from_bits(i as u32),
            (Value::Int(i), Encoding::CCast) => i as f32,
            (Value::Real(r), _) => r,
        }
    }

    /// PX4's type for the value: INT32 or REAL32.
    fn px4_type(self) -> MavParamType {
        match self {
            Value::Int(_) => MavParamType::MAV_PARAM_TYPE_INT32,
            Value::Real(_) => MavParamType::MAV_PARAM_TYPE_REAL32,
        }
    }
}

/// PX4 SITL's defaults (upstream main, 2025: the parameter defaults with what SITL's rcS sets
/// on top, e.g. COM_LOW_BAT_ACT 3) for what the endpoint implements. `MAV_SYS_ID` is set per
/// instance. `SIM_BAT_*` and `SYS_HITL` are there because PX4's SITL has them: they are how a
/// companion tells a SITL from a flight build (`alpha3_hil::simulator`), and this endpoint is a
/// simulator.
const DEFAULTS: &[(&str, Value)] = &[
    ("COM_DISARM_LAND", Value::Real(2.0)),
    ("COM_DISARM_PRFLT", Value::Real(10.0)),
    ("COM_DL_LOSS_T", Value::Real(10.0)),
    ("COM_FAIL_ACT_T", Value::Real(5.0)),
    ("COM_LOW_BAT_ACT", Value::Int(3)),
    ("COM_OBL_RC_ACT", Value::Int(0)),
    ("COM_OF_LOSS_T", Value::Real(1.0)),
    ("GF_ACTION", Value::Int(2)),
    ("GF_MAX_HOR_DIST", Value::Real(0.0)),
    ("GF_MAX_VER_DIST", Value::Real(0.0)),
    ("MAV_SYS_ID", Value::Int(1)),
    ("MIS_TAKEOFF_ALT", Value::Real(2.5)),
    ("NAV_DLL_ACT", Value::Int(0)),
    ("NAV_RCL_ACT", Value::Int(2)),
    ("RTL_RETURN_ALT", Value::Real(60.0)),
    ("SIM_BAT_DRAIN", Value::Real(60.0)),
    ("SIM_BAT_ENABLE", Value::Int(1)),
    ("SYS_AUTOSTART", Value::Int(10040)),
    ("SYS_HITL", Value::Int(0)),
];

/// The parameter table, in the autopilot's (alphabetical) index order.
#[derive(Debug, Clone)]
pub struct Params {
    entries: Vec<(String, Value, MavParamType)>,
    encoding: Encoding,
}

impl Params {
    pub fn px4_defaults(system_id: u8) -> Self {
        let mut p = Self {
            entries: DEFAULTS
                .iter()
                .map(|(n, v)| ((*n).to_string(), *v, v.px4_type()))
                .collect(),
            encoding: Encoding::Bytewise,
        };
        p.set("MAV_SYS_ID", Value::Int(i32::from(system_id)));
        p
    }

    /// A table of (name, value, type), integers sent as numbers (ArduPilot).
    pub(super) fn c_cast(table: &[(&str, Value, MavParamType)]) -> Self {
        let mut entries: Vec<_> = table
            .iter()
            .map(|(n, v, t)| ((*n).to_string(), *v, *t))
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        Self {
            entries,
            encoding: Encoding::CCast,
        }
    }

    pub fn get(&self, name: &str) -> Option<Value> {
        self.entries
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, v, _)| *v)
    }

    /// The value as a number (0 when the parameter does not exist).
    pub fn number(&self, name: &str) -> f64 {
        self.get(name).map_or(0.0, Value::as_f64)
    }

    /// Sets an existing parameter, converted to its own type; `false` for unknown names.
    pub fn set(&mut self, name: &str, value: Value) -> bool {
        let Some((_, slot, _)) = self.entries.iter_mut().find(|(n, _, _)| n == name) else {
            return false;
        };
        *slot = match (*slot, value) {
            (Value::Int(_), Value::Real(r)) => Value::Int(r.round() as i32),
            (Value::Real(_), Value::Int(i)) => Value::Real(i as f32),
            (_, v) => v,
        };
        true
    }

    /// Takes a parameter away (a test plays a flight build, which has no `SIM_*`); `false`
    /// when there was none.
    pub fn remove(&mut self, name: &str) -> bool {
        let before = self.entries.len();
        self.entries.retain(|(n, _, _)| n != name);
        self.entries.len() < before
    }

    /// PARAM_VALUE for entry `index`.
    pub fn value_message(&self, index: usize) -> Option<MavMessage> {
        let (name, value, param_type) = self.entries.get(index)?;
        let param_type = *param_type;
        Some(MavMessage::PARAM_VALUE(mav::PARAM_VALUE_DATA {
            param_value: value.wire(self.encoding),
            param_count: self.entries.len() as u16,
            param_index: index as u16,
            param_id: name.as_str().into(),
            param_type,
        }))
    }

    fn index_of(&self, name: &str) -> Option<usize> {
        self.entries.iter().position(|(n, _, _)| n == name)
    }

    /// PARAM_REQUEST_READ: by index when it is ≥ 0, else by name. Unknown: no answer (PX4).
    pub fn read(&self, r: &mav::PARAM_REQUEST_READ_DATA) -> Option<MavMessage> {
        let index = if r.param_index >= 0 {
            Some(r.param_index as usize)
        } else {
            self.index_of(&name_of(&r.param_id[..]))
        };
        self.value_message(index?)
    }

    /// PARAM_REQUEST_LIST: every value.
    pub fn list(&self) -> Vec<MavMessage> {
        (0..self.entries.len())
            .filter_map(|i| self.value_message(i))
            .collect()
    }

    /// PARAM_SET: stores and echoes the new value; unknown names get no answer.
    pub fn write(&mut self, s: &mav::PARAM_SET_DATA) -> Option<MavMessage> {
        let name = name_of(&s.param_id[..]);
        let value = match s.param_type {
            MavParamType::MAV_PARAM_TYPE_INT32
            | MavParamType::MAV_PARAM_TYPE_UINT32
            | MavParamType::MAV_PARAM_TYPE_INT16
            | MavParamType::MAV_PARAM_TYPE_UINT16
            | MavParamType::MAV_PARAM_TYPE_INT8
            | MavParamType::MAV_PARAM_TYPE_UINT8 => match self.encoding {
                Encoding::Bytewise => Value::Int(s.param_value.to_bits() as i32),
                Encoding::CCast if s.param_value.is_finite() => Value::Int(s.param_value as i32),
                Encoding::CCast => return None,
            },
            _ if s.param_value.is_finite() => Value::Real(s.param_value),
            _ => return None,
        };
        if !self.set(&name, value) {
            return None;
        }
        self.value_message(self.index_of(&name)?)
    }
}

/// The 16-byte, NUL-padded name field as text.
fn name_of(raw: &[u8]) -> String {
    let end = raw.iter().position(|b| *b == 0).unwrap_or(raw.len());
    String::from_utf8_lossy(&raw[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(p: &Params, name: &str) -> mav::PARAM_VALUE_DATA {
        let r = mav::PARAM_REQUEST_READ_DATA {
            param_index: -1,
            param_id: name.into(),
            ..Default::default()
        };
        match p.read(&r) {
            Some(MavMessage::PARAM_VALUE(v)) => v,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn int32_parameters_travel_bytewise_and_reals_as_floats() {
        let p = Params::px4_defaults(3);
        let v = read(&p, "NAV_RCL_ACT");
        assert_eq!(v.param_type, MavParamType::MAV_PARAM_TYPE_INT32);
        assert_eq!(v.param_value.to_bits(), 2);
        assert_eq!(read(&p, "MAV_SYS_ID").param_value.to_bits(), 3);
        let rtl = read(&p, "RTL_RETURN_ALT");
        assert_eq!(
            (rtl.param_value, rtl.param_type),
            (60.0, MavParamType::MAV_PARAM_TYPE_REAL32)
        );
        assert_eq!(p.list().len(), DEFAULTS.len());
        let unknown = mav::PARAM_REQUEST_READ_DATA {
            param_index: -1,
            param_id: "NO_SUCH".into(),
            ..Default::default()
        };
        assert!(p.read(&unknown).is_none());
    }

    #[test]
    fn param_set_stores_in_the_parameters_own_type() {
        let mut p = Params::px4_defaults(1);
        let set = mav::PARAM_SET_DATA {
            param_value: f32::from_bits(3),
            param_id: "GF_ACTION".into(),
            param_type: MavParamType::MAV_PARAM_TYPE_INT32,
            ..Default::default()
        };
        assert!(p.write(&set).is_some());
        assert_eq!(p.get("GF_ACTION"), Some(Value::Int(3)));
        let fence = mav::PARAM_SET_DATA {
            param_value: 25.0,
            param_id: "GF_MAX_HOR_DIST".into(),
            param_type: MavParamType::MAV_PARAM_TYPE_REAL32,
            ..Default::default()
        };
        assert!(p.write(&fence).is_some());
        assert_eq!(p.number("GF_MAX_HOR_DIST"), 25.0);
        let nan = mav::PARAM_SET_DATA {
            param_value: f32::NAN,
            ..fence
        };
        assert!(p.write(&nan).is_none());
    }
}
