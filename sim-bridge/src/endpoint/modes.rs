//! PX4's flight modes on the wire: HEARTBEAT `custom_mode = main << 16 | sub << 24`, the
//! `base_mode` flags PX4 sets for each, and their names. The mode the vehicle is in is in
//! `state`; entering one is `mode_change`.

use super::codec::mav::MavModeFlag;

pub use alpha3_core::px4_modes::*;

/// A PX4 mode: main mode and (for AUTO) sub mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Px4Mode {
    pub main: u8,
    pub sub: u8,
}

impl Px4Mode {
    /// Hold (AUTO.LOITER): PX4's mode at boot and after a take-off.
    pub const HOLD: Self = Self::auto(SUB_LOITER);
    pub const TAKEOFF: Self = Self::auto(SUB_TAKEOFF);
    pub const LAND: Self = Self::auto(SUB_LAND);
    pub const RTL: Self = Self::auto(SUB_RTL);
    pub const MISSION: Self = Self::auto(SUB_MISSION);
    pub const OFFBOARD: Self = Self::main(MAIN_OFFBOARD);
    pub const POSCTL: Self = Self::main(MAIN_POSCTL);
    pub const ALTCTL: Self = Self::main(MAIN_ALTCTL);

    const fn auto(sub: u8) -> Self {
        Self {
            main: MAIN_AUTO,
            sub,
        }
    }

    const fn main(main: u8) -> Self {
        Self { main, sub: 0 }
    }

    /// From DO_SET_MODE's param2/param3 (non-AUTO modes carry no sub mode).
    pub fn from_params(main: f32, sub: f32) -> Option<Self> {
        let byte = |v: f32| (v.is_finite() && (0.0..=255.0).contains(&v)).then_some(v as u8);
        let (main, sub) = (byte(main)?, byte(sub)?);
        Some(if main == MAIN_AUTO {
            Self::auto(sub)
        } else {
            Self::main(main)
        })
    }

    /// HEARTBEAT `custom_mode`.
    pub const fn custom_mode(self) -> u32 {
        ((self.main as u32) << 16) | ((self.sub as u32) << 24)
    }

    /// HEARTBEAT `base_mode`, as PX4 fills it.
    pub fn base_mode(self, armed: bool) -> MavModeFlag {
        use MavModeFlag as F;
        let mut f = F::MAV_MODE_FLAG_CUSTOM_MODE_ENABLED;
        if armed {
            f |= F::MAV_MODE_FLAG_SAFETY_ARMED;
        }
        f |= match self.main {
            MAIN_MANUAL | MAIN_ACRO => F::MAV_MODE_FLAG_MANUAL_INPUT_ENABLED,
            MAIN_ALTCTL | MAIN_POSCTL | MAIN_STABILIZED => {
                F::MAV_MODE_FLAG_MANUAL_INPUT_ENABLED | F::MAV_MODE_FLAG_STABILIZE_ENABLED
            }
            _ => {
                F::MAV_MODE_FLAG_AUTO_ENABLED
                    | F::MAV_MODE_FLAG_STABILIZE_ENABLED
                    | F::MAV_MODE_FLAG_GUIDED_ENABLED
            }
        };
        f
    }

    /// Short name for status texts.
    pub fn name(self) -> &'static str {
        match (self.main, self.sub) {
            (MAIN_MANUAL, _) => "Manual",
            (MAIN_ALTCTL, _) => "Altitude",
            (MAIN_POSCTL, _) => "Position",
            (MAIN_ACRO, _) => "Acro",
            (MAIN_OFFBOARD, _) => "Offboard",
            (MAIN_STABILIZED, _) => "Stabilized",
            (MAIN_AUTO, SUB_TAKEOFF) => "Takeoff",
            (MAIN_AUTO, SUB_LOITER) => "Hold",
            (MAIN_AUTO, SUB_MISSION) => "Mission",
            (MAIN_AUTO, SUB_RTL) => "Return",
            (MAIN_AUTO, SUB_LAND) => "Land",
            (MAIN_AUTO, SUB_READY) => "Ready",
            _ => "Unknown",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_mode_packs_main_and_sub_as_px4_does() {
        assert_eq!(Px4Mode::HOLD.custom_mode(), 0x0304_0000);
        assert_eq!(Px4Mode::OFFBOARD.custom_mode(), 0x0006_0000);
        assert_eq!(Px4Mode::from_params(4.0, 6.0), Some(Px4Mode::LAND));
        assert_eq!(Px4Mode::from_params(6.0, 3.0), Some(Px4Mode::OFFBOARD));
        assert_eq!(Px4Mode::from_params(f32::NAN, 0.0), None);
        let armed = Px4Mode::HOLD.base_mode(true);
        assert!(armed.contains(MavModeFlag::MAV_MODE_FLAG_SAFETY_ARMED));
        assert!(armed.contains(MavModeFlag::MAV_MODE_FLAG_CUSTOM_MODE_ENABLED));
        assert!(
            !Px4Mode::HOLD
                .base_mode(false)
                .contains(MavModeFlag::MAV_MODE_FLAG_SAFETY_ARMED)
        );
    }
}
