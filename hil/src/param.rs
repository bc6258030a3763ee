//! The PARAM protocol, client side: read named parameters with PARAM_REQUEST_READ, retrying
//! until PARAM_VALUE answers.
//!
//! Integer parameters travel in PARAM_VALUE's float field, and firmware disagree on how: PX4
//! copies the integer's bytes into the float ("byte-wise"), ArduPilot converts the number
//! ("C cast"). Reading PX4's NAV_DLL_ACT = 2 as a number would give 2.8e-45.

use crate::command::Target;
use crate::dialect::{MavMessage, mav, param_name};
use mav::MavParamType;
use std::collections::{BTreeMap, BTreeSet};

/// How integers are packed into the float field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamEncoding {
    Bytewise,
    CCast,
}

/// A parameter's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamValue {
    Int(i64),
    Real(f32),
}

impl ParamValue {
    pub fn as_f64(self) -> f64 {
        match self {
            ParamValue::Int(i) => i as f64,
            ParamValue::Real(r) => f64::from(r),
        }
    }
}

impl std::fmt::Display for ParamValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Real(r) => write!(f, "{r}"),
        }
    }
}

/// Reads a PARAM_VALUE's float field.
pub fn decode_param(raw: f32, ty: MavParamType, encoding: ParamEncoding) -> ParamValue {
    use MavParamType as T;
    if matches!(ty, T::MAV_PARAM_TYPE_REAL32 | T::MAV_PARAM_TYPE_REAL64) {
        return ParamValue::Real(raw);
    }
    match encoding {
        ParamEncoding::CCast => ParamValue::Int(raw as i64),
        ParamEncoding::Bytewise => {
            let b = raw.to_bits().to_le_bytes();
            ParamValue::Int(match ty {
                T::MAV_PARAM_TYPE_UINT8 => i64::from(b[0]),
                T::MAV_PARAM_TYPE_INT8 => i64::from(b[0] as i8),
                T::MAV_PARAM_TYPE_UINT16 => i64::from(u16::from_le_bytes([b[0], b[1]])),
                T::MAV_PARAM_TYPE_INT16 => i64::from(i16::from_le_bytes([b[0], b[1]])),
                T::MAV_PARAM_TYPE_UINT32 => i64::from(u32::from_le_bytes(b)),
                _ => i64::from(i32::from_le_bytes(b)),
            })
        }
    }
}

/// Packs a value into the float field (for PARAM_SET, and for test autopilots).
pub fn encode_param(value: ParamValue, encoding: ParamEncoding) -> f32 {
    match (value, encoding) {
        (ParamValue::Real(r), _) => r,
        (ParamValue::Int(i), ParamEncoding::CCast) => i as f32,
        (ParamValue::Int(i), ParamEncoding::Bytewise) => f32::from_bits(i as i32 as u32),
    }
}

#[derive(Debug, Clone)]
struct Pending {
    name: String,
    sends: u32,
    next_send_us: u64,
}

/// A PARAM_SET waiting for the autopilot to echo the new value.
#[derive(Debug, Clone)]
struct PendingWrite {
    name: String,
    value: ParamValue,
    raw: f32,
    ty: MavParamType,
    sends: u32,
    next_send_us: u64,
}

/// Reads a set of parameters, one request at a time in flight per name.
#[derive(Debug, Clone)]
pub struct ParamClient {
    timeout_us: u64,
    max_sends: u32,
    pending: Vec<Pending>,
    writes: Vec<PendingWrite>,
    values: BTreeMap<String, ParamValue>,
    types: BTreeMap<String, MavParamType>,
    failed: BTreeSet<String>,
}

impl ParamClient {
    pub fn new(timeout_ms: u64, max_sends: u32) -> Self {
        Self {
            timeout_us: timeout_ms * 1000,
            max_sends: max_sends.max(1),
            pending: Vec::new(),
            writes: Vec::new(),
            values: BTreeMap::new(),
            types: BTreeMap::new(),
            failed: BTreeSet::new(),
        }
    }

    /// Asks for `names` (again, if read before: an earlier answer is forgotten, so the values
    /// are what the autopilot says now — after a reboot it may be another firmware).
    pub fn request(&mut self, now_us: u64, names: &[String]) {
        for name in names {
            self.failed.remove(name);
            self.values.remove(name);
            if !self.pending.iter().any(|p| &p.name == name) {
                self.pending.push(Pending {
                    name: name.clone(),
                    sends: 0,
                    next_send_us: now_us,
                });
            }
        }
    }

    pub fn is_done(&self) -> bool {
        self.pending.is_empty() && self.writes.is_empty()
    }

    /// The type the autopilot gave `name` when it was last read.
    pub fn type_of(&self, name: &str) -> Option<MavParamType> {
        self.types.get(name).copied()
    }

    /// Sets `name` to `value` (typed `ty`, packed per `encoding`) with PARAM_SET, retried until
    /// the autopilot echoes the new value. Callers check [`ParamWritePolicy`] first; the
    /// session does.
    ///
    /// [`ParamWritePolicy`]: crate::param_guard::ParamWritePolicy
    pub fn write(
        &mut self,
        now_us: u64,
        name: &str,
        value: ParamValue,
        ty: MavParamType,
        encoding: ParamEncoding,
    ) {
        self.failed.remove(name);
        self.writes.retain(|w| w.name != name);
        self.writes.push(PendingWrite {
            name: name.to_string(),
            value,
            raw: encode_param(value, encoding),
            ty,
            sends: 0,
            next_send_us: now_us,
        });
    }

    pub fn values(&self) -> &BTreeMap<String, ParamValue> {
        &self.values
    }

    /// Names that never got an answer.
    pub fn failed(&self) -> &BTreeSet<String> {
        &self.failed
    }

    /// The next PARAM_SET or PARAM_REQUEST_READ due now.
    pub fn poll_transmit(&mut self, now_us: u64, target: Target) -> Option<MavMessage> {
        if let Some(i) = self.writes.iter().position(|w| w.next_send_us <= now_us) {
            if self.writes[i].sends >= self.max_sends {
                let gone = self.writes.swap_remove(i);
                self.failed.insert(gone.name);
                return self.poll_transmit(now_us, target);
            }
            let w = &mut self.writes[i];
            w.sends += 1;
            w.next_send_us = now_us + self.timeout_us;
            return Some(MavMessage::PARAM_SET(mav::PARAM_SET_DATA {
                param_value: w.raw,
                target_system: target.system,
                target_component: target.component,
                param_id: w.name.as_str().into(),
                param_type: w.ty,
            }));
        }
        let i = self.pending.iter().position(|p| p.next_send_us <= now_us)?;
        if self.pending[i].sends >= self.max_sends {
            let gone = self.pending.swap_remove(i);
            self.failed.insert(gone.name);
            return self.poll_transmit(now_us, target);
        }
        let p = &mut self.pending[i];
        p.sends += 1;
        p.next_send_us = now_us + self.timeout_us;
        Some(MavMessage::PARAM_REQUEST_READ(
            mav::PARAM_REQUEST_READ_DATA {
                param_index: -1,
                target_system: target.system,
                target_component: target.component,
                param_id: p.name.as_str().into(),
            },
        ))
    }

    pub fn poll_timeout(&self) -> Option<u64> {
        self.pending
            .iter()
            .map(|p| p.next_send_us)
            .chain(self.writes.iter().map(|w| w.next_send_us))
            .min()
    }

    /// Takes a PARAM_VALUE; returns the name if it answered a pending read.
    pub fn on_value(
        &mut self,
        v: &mav::PARAM_VALUE_DATA,
        encoding: ParamEncoding,
    ) -> Option<String> {
        let name = param_name(&v.param_id[..]);
        let value = decode_param(v.param_value, v.param_type, encoding);
        self.values.insert(name.clone(), value);
        self.types.insert(name.clone(), v.param_type);
        let before = self.writes.len();
        self.writes
            .retain(|w| !(w.name == name && w.value == value));
        if self.writes.len() < before {
            self.pending.retain(|p| p.name != name);
            return Some(name);
        }
        let i = self.pending.iter().position(|p| p.name == name)?;
        self.pending.swap_remove(i);
        Some(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn px4_integers_are_read_byte_wise() {
        // NAV_DLL_ACT = 2 as PX4 sends it: the bits of 2i32 in a float (a denormal ~2.8e-45).
        let raw = f32::from_bits(2);
        assert!(raw > 0.0 && raw < 1e-40);
        let v = decode_param(
            raw,
            MavParamType::MAV_PARAM_TYPE_INT32,
            ParamEncoding::Bytewise,
        );
        assert_eq!(v, ParamValue::Int(2));
        let neg = f32::from_bits((-1i32) as u32);
        assert_eq!(
            decode_param(
                neg,
                MavParamType::MAV_PARAM_TYPE_INT32,
                ParamEncoding::Bytewise
            ),
            ParamValue::Int(-1)
        );
        assert_eq!(
            encode_param(ParamValue::Int(-1), ParamEncoding::Bytewise).to_bits(),
            u32::MAX
        );
    }

    #[test]
    fn ardupilot_integers_are_c_cast_and_floats_are_floats() {
        let v = decode_param(2.0, MavParamType::MAV_PARAM_TYPE_INT8, ParamEncoding::CCast);
        assert_eq!(v, ParamValue::Int(2));
        let r = decode_param(
            25.5,
            MavParamType::MAV_PARAM_TYPE_REAL32,
            ParamEncoding::Bytewise,
        );
        assert_eq!(r, ParamValue::Real(25.5));
    }

    #[test]
    fn reads_are_retried_then_given_up() {
        let t = Target {
            system: 1,
            component: 1,
        };
        let mut c = ParamClient::new(100, 2);
        c.request(0, &["NAV_DLL_ACT".to_string(), "GF_ACTION".to_string()]);
        assert!(c.poll_transmit(0, t).is_some());
        assert!(c.poll_transmit(0, t).is_some());
        assert!(c.poll_transmit(0, t).is_none(), "both in flight");
        let answer = mav::PARAM_VALUE_DATA {
            param_value: f32::from_bits(2),
            param_count: 1,
            param_index: 0,
            param_id: "NAV_DLL_ACT".into(),
            param_type: MavParamType::MAV_PARAM_TYPE_INT32,
        };
        assert_eq!(
            c.on_value(&answer, ParamEncoding::Bytewise).as_deref(),
            Some("NAV_DLL_ACT")
        );
        assert_eq!(c.poll_timeout(), Some(100_000));
        assert!(c.poll_transmit(100_000, t).is_some(), "GF_ACTION again");
        assert!(c.poll_transmit(200_000, t).is_none(), "out of tries");
        assert!(c.is_done());
        assert!(c.failed().contains("GF_ACTION"));
        assert_eq!(c.values()["NAV_DLL_ACT"], ParamValue::Int(2));
    }
}
