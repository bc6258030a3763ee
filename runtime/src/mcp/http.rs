//! Streamable HTTP: the SDK's session service on `/mcp`, served by hyper on the address
//! [`super::listen`] allowed, each request checked for the bearer token first when there is one,
//! and a POSTed message read under the size cap and checked ([`super::http_body`]) before the
//! SDK sees it.

use super::http_body;
use super::listen::{BearerToken, Listen};
use super::server::McpServer;
use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// The one path the server answers on.
pub const PATH: &str = "/mcp";

type Service = StreamableHttpService<McpServer, LocalSessionManager>;

/// A running server.
#[derive(Debug)]
pub struct Running {
    /// The address it listens on (port 0 asked for a free one).
    pub addr: SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
}

impl Running {
    /// Stops accepting connections.
    pub fn stop(self) {
        let _ = self.stop.send(());
    }
}

/// Binds `listen.addr` and serves MCP there until stopped; `session` makes the handler of each
/// new MCP session.
pub async fn start(
    listen: Listen,
    session: impl Fn() -> McpServer + Send + Sync + 'static,
) -> std::io::Result<Running> {
    let mut config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(super::caps::MESSAGE_BYTES);
    if !listen.addr.ip().is_loopback() {
        // Requests name this machine's outside address; the bearer token guards them.
        config = config.disable_allowed_hosts();
    }
    let service: Service = StreamableHttpService::new(
        move || Ok(session()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let listener = TcpListener::bind(listen.addr).await?;
    let addr = listener.local_addr()?;
    let token = listen.token.map(Arc::new);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(accept_loop(listener, service, token, stopped));
    Ok(Running { addr, stop })
}

async fn accept_loop(
    listener: TcpListener,
    service: Service,
    token: Option<Arc<BearerToken>>,
    mut stop: tokio::sync::oneshot::Receiver<()>,
) {
    loop {
        let accepted = tokio::select! {
            _ = &mut stop => return,
            a = listener.accept() => a,
        };
        let stream = match accepted {
            Ok((s, _)) => s,
            Err(e) => {
                tracing::warn!("accepting an MCP connection: {e}");
                // Out of descriptors, say: do not spin.
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let service = service.clone();
        let token = token.clone();
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(move |req: Request<Incoming>| {
                let service = service.clone();
                let token = token.clone();
                async move { Ok::<_, Infallible>(route(&service, token.as_deref(), req).await) }
            });
            if let Err(e) = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), svc)
                .await
            {
                tracing::debug!("MCP connection ended: {e}");
            }
        });
    }
}

async fn route(
    service: &Service,
    token: Option<&BearerToken>,
    req: Request<Incoming>,
) -> Response<BoxBody<Bytes, Infallible>> {
    if req.uri().path() != PATH {
        return plain(StatusCode::NOT_FOUND, "not found: the MCP endpoint is /mcp");
    }
    if let Some(t) = token {
        let header = req
            .headers()
            .get(http::header::AUTHORIZATION)
            .map(|v| v.as_bytes());
        if !t.admits(header) {
            let mut r = plain(StatusCode::UNAUTHORIZED, "a bearer token is required");
            r.headers_mut().insert(
                http::header::WWW_AUTHENTICATE,
                http::HeaderValue::from_static("Bearer"),
            );
            return r;
        }
    }
    if http_body::is_json_post(&req) {
        return match http_body::checked(req).await {
            Ok(req) => service.handle(req).await,
            Err(refused) => refused,
        };
    }
    service.handle(req).await
}

fn plain(status: StatusCode, text: &'static str) -> Response<BoxBody<Bytes, Infallible>> {
    let mut r = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *r.status_mut() = status;
    r
}
