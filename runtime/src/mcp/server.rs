//! The MCP server of one session (stdio has one; streamable HTTP one per client session): lists
//! the catalogue's tools, hands each `tools/call` to the episode loop and waits for its answer,
//! serves the resources, and tells a client that subscribed to `alpha3://operator` when the
//! operator has spoken (`notifications/resources/updated`).

use super::call::{CallReply, CallRequest};
use super::caller::Caller;
use super::caps;
use super::control::Control;
use super::excerpt;
use super::presence::{Attendance, Seat};
use super::resources;
use super::tools;
use super::view::SessionView;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ResourceUpdatedNotificationParam, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{broadcast, mpsc, oneshot};

/// The newest protocol revision served. A flight is a session whose end the watchdog must
/// know; the 2026-07-28 revision's stateless envelope has no session, so clients negotiate the
/// `initialize` handshake of 2025-11-25 (or older).
pub const PROTOCOL: ProtocolVersion = ProtocolVersion::V_2025_11_25;

const INSTRUCTIONS: &str = "alpha3 flies one drone mission. Every tool call is one agent turn: \
it is checked against the tool's schema, the network-slice policy and the safety gate before \
the vehicle sees it, and answered after it has played out, with the telemetry. A call the gate \
denies comes back as an error result naming each finding (id, reason, limit, measured): \
change the request and call again. If you make no call within the decision deadline the \
watchdog holds the vehicle, then returns it. Read alpha3://mission for the briefing, \
waypoints and airspace; subscribe to alpha3://operator to hear when the operator speaks.";

/// One session's handler.
#[derive(Debug)]
pub struct McpServer {
    calls: mpsc::Sender<CallRequest>,
    view: SessionView,
    attendance: Attendance,
    tools: Arc<Vec<Tool>>,
    /// Held from `initialized` until this session's handler is dropped (the session ended).
    seat: Mutex<Option<Seat>>,
    /// The client subscribed to `alpha3://operator`.
    operator_subscribed: Arc<AtomicBool>,
    /// Who holds control of the vehicle; released when this session ends holding it.
    control: Control,
    /// The session's name when the transport gives none (`stdio`, or a counter).
    fallback: String,
    /// This session and its client, from `initialized` on.
    caller: Mutex<Option<Caller>>,
}

impl McpServer {
    pub fn new(
        calls: mpsc::Sender<CallRequest>,
        view: SessionView,
        attendance: Attendance,
        tools: Arc<Vec<Tool>>,
        control: Control,
        fallback: String,
    ) -> Self {
        Self {
            calls,
            view,
            attendance,
            tools,
            seat: Mutex::new(None),
            operator_subscribed: Arc::new(AtomicBool::new(false)),
            control,
            fallback,
            caller: Mutex::new(None),
        }
    }

    /// This session and its client: the MCP session id over HTTP (the `Mcp-Session-Id` the SDK
    /// checked), else the fallback name; the client's name and version from `initialize`.
    fn identify(
        &self,
        extensions: &rmcp::model::Extensions,
        peer: &rmcp::Peer<RoleServer>,
    ) -> Caller {
        if let Some(c) = self
            .caller
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
        {
            return c.clone();
        }
        let session = extensions
            .get::<http::request::Parts>()
            .and_then(|p| p.headers.get("mcp-session-id"))
            .and_then(|v| v.to_str().ok())
            .unwrap_or(&self.fallback)
            .to_string();
        let Some(info) = peer.peer_info() else {
            // Not initialised yet: named, but not remembered, until the client introduces itself.
            return Caller::new(&session, "unknown", "-");
        };
        let caller = Caller::new(&session, &info.client_info.name, &info.client_info.version);
        *self.caller.lock().unwrap_or_else(|e| e.into_inner()) = Some(caller.clone());
        caller
    }

    fn ended(&self) -> String {
        self.view.status().ended.map_or_else(
            || "the episode has ended".into(),
            |r| format!("the episode ended: {r}"),
        )
    }

    async fn call(&self, request: CallToolRequestParams, caller: Caller) -> CallReply {
        let (reply, answer) = oneshot::channel();
        let name = request.name.to_string();
        let arguments = request.arguments.map_or(Value::Null, Value::Object);
        // Over a cap, only excerpts go on: the loop records the call and refuses it.
        let over_cap = caps::check(&name, &arguments).err();
        let (name, arguments) = match over_cap {
            Some(_) => (
                excerpt::text(&name, caps::TOOL_NAME_BYTES),
                excerpt::arguments(&arguments),
            ),
            None => (name, arguments),
        };
        let call = CallRequest {
            name,
            arguments,
            caller,
            over_cap,
            reply,
        };
        if self.calls.send(call).await.is_err() {
            return CallReply::NotRun {
                reason: self.ended(),
            };
        }
        answer.await.unwrap_or_else(|_| CallReply::NotRun {
            reason: self.ended(),
        })
    }
}

/// Tells one client, while it is subscribed, each time the operator speaks, until its session
/// or the episode ends.
async fn forward_operator(
    mut notes: broadcast::Receiver<super::view::OperatorNote>,
    subscribed: Arc<AtomicBool>,
    peer: rmcp::Peer<RoleServer>,
) {
    loop {
        match notes.recv().await {
            Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
            Err(broadcast::error::RecvError::Closed) => return,
        }
        if !subscribed.load(Ordering::Relaxed) {
            continue;
        }
        let updated = ResourceUpdatedNotificationParam::new(resources::OPERATOR);
        if peer.notify_resource_updated(updated).await.is_err() {
            return;
        }
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_resources_subscribe()
            .build();
        ServerConfig::new(capabilities)
            .with_protocol_version(PROTOCOL)
            .with_server_info(Implementation::new("alpha3", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&PROTOCOL))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let caller = self.identify(&context.extensions, &context.peer);
        self.view.update_status(|s| {
            s.client.get_or_insert(caller.client);
        });
        let notes = self.view.subscribe_operator();
        // The briefing and anything said before this client joined are in alpha3://operator.
        tokio::spawn(forward_operator(
            notes,
            self.operator_subscribed.clone(),
            context.peer.clone(),
        ));
        let mut seat = self.seat.lock().unwrap_or_else(|e| e.into_inner());
        if seat.is_none() {
            *seat = Some(self.attendance.join());
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let caller = self.identify(&context.extensions, &context.peer);
        Ok(tools::result(self.call(request, caller).await).into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(resources::list()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let reader = self.identify(&context.extensions, &context.peer);
        match resources::read(&self.view, &request.uri, Some(&reader)) {
            Some(c) => Ok(ReadResourceResult::new(vec![c]).into()),
            None => Err(ErrorData::resource_not_found(
                format!("no resource {}", request.uri),
                None,
            )),
        }
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscription(&request.uri, true)
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscription(&request.uri, false)
    }
}

impl Drop for McpServer {
    /// The session ended (closed, deleted, expired): control, if it held it, passes on.
    fn drop(&mut self) {
        if let Some(c) = self.caller.get_mut().unwrap_or_else(|e| e.into_inner()) {
            self.control.release(&c.session);
        }
    }
}

impl McpServer {
    /// Subscriptions exist for the operator's messages; the other resources change with every
    /// call and are read when wanted.
    fn subscription(&self, uri: &str, on: bool) -> Result<(), ErrorData> {
        if uri != resources::OPERATOR {
            return Err(ErrorData::invalid_params(
                format!("only {} can be subscribed to", resources::OPERATOR),
                None,
            ));
        }
        self.operator_subscribed.store(on, Ordering::Relaxed);
        Ok(())
    }
}
