//! Flying the uploaded MISSION plan, as PX4's navigator and ArduCopter's AUTO do
//! (`shared/MISSION-FACTS.md` §5), sans-IO and stepped with the vehicle. The vehicle keeps a
//! copy of the plan the mission server stored (`MissionRun` in `state`); the machine passes
//! the current item and the items reached to the server (MISSION_CURRENT,
//! MISSION_ITEM_REACHED) and a peer's MISSION_SET_CURRENT back.
//!
//! - `item`: what an item asks (take-off, fly to, wait, land, return, speed, or skipped).
//! - `fly`: the current item as commands to the world's flight controller, reached, next,
//!   and the end of the mission.
//! - `start`: entering and resuming, moving the current item, a new plan; PX4's
//!   MISSION_START and DO_SET_MISSION_CURRENT.
//! - `auto`: ArduCopter's AUTO, its MISSION_START and DO_PAUSE_CONTINUE.
//!
//! Approximations, said here: waypoints are reached within 2 m (0.8 m vertically) and the
//! world stops on each; LOITER_TURNS is flown to its centre and not circled; ArduCopter's live
//! mission writes reach the vehicle when an upload starts and ends, not item by item.

mod auto;
mod fly;
mod item;
mod start;
