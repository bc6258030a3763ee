//! `alpha3 mcp`: an MCP server (the official Rust SDK, `rmcp`) through which any MCP client
//! flies one episode. The client's tool calls play the role of a policy's actions in the
//! ordinary closed loop ([`crate::agent`]): schema check ([`client_policy`]), slice policy,
//! gate, execution and telemetry confirmation, with the watchdog ruling whenever the client is
//! silent past the deadline and the failsafe landing the vehicle when it leaves.
//!
//! - [`session`]: transport, first client, the episode, the end;
//! - [`server`]: one MCP session's handler (tools, resources, operator notifications);
//! - [`client_policy`]: calls as decisions, and how dialogue turns are cut from them;
//! - [`call`]: a call on its way to the loop and its answer;
//! - [`caller`], [`control`]: who made a call; one session at a time flies the vehicle;
//! - [`caps`], [`excerpt`]: what a client may send, and what the record keeps of the rest;
//! - [`stdio`], [`unreadable`]: newline-delimited JSON-RPC with every line answered;
//! - [`tools`]: the catalogue as MCP tools, an answer as a tool result;
//! - [`resources`], [`view`]: telemetry, mission, operator messages, session status;
//! - [`presence`]: when the episode starts and when every client has left;
//! - [`listen`], [`http`], [`http_body`]: streamable HTTP, loopback unless allowed, with a
//!   bearer token, each body read under the cap and checked.

pub mod call;
pub mod caller;
pub mod caps;
pub mod client_policy;
pub mod control;
pub mod excerpt;
pub mod http;
pub mod http_body;
pub mod listen;
pub mod presence;
pub mod resources;
pub mod server;
pub mod session;
pub mod stdio;
pub mod tools;
pub mod unreadable;
pub mod view;

pub use session::{Episode, SessionError, Transport, run};
