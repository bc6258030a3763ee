//! The substitution step: what the gate flies instead of what was asked, decided around the
//! judgement (`judge`) and never inside it. Each substitution may ask the judgement to approve
//! its replacement; the judgement and the checks never call back here.
//!
//! - `landing`: below the band a vehicle is committed to its landing (a hold becomes the
//!   landing, anything else that moves it is denied) or to its take-off.
//! - `hold`: a hold becomes a move out of the way of traffic or a moving zone about to pass,
//!   or the return when hovering on would leave too little battery for the way home.
//! - `altitude`: an out-of-band target altitude is clamped into the band when
//!   `limits.clamp_altitude` allows, before the command is judged.

pub(crate) mod altitude;
pub(crate) mod hold;
pub(crate) mod landing;
