//! A POSTed MCP message read under the size cap and checked before the SDK sees it: the SDK
//! answers a body that is not JSON with 415 (the media type was right; the body was not) and a
//! plain-text body. Here a body over the cap is 413 and one that is not a client message is
//! 400, each with a JSON-RPC error body a client can read.

use super::caps::MESSAGE_BYTES;
use super::unreadable::{self, ID_PREFIX_BYTES, Unreadable};
use bytes::{Bytes, BytesMut};
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use std::convert::Infallible;

/// How much of a body over the cap is read (and dropped) before answering, so the client is
/// done sending and reads the answer rather than a reset connection.
const DRAIN_BYTES: usize = 64 << 20;

pub type Reply = Response<BoxBody<Bytes, Infallible>>;

/// Whether a request carries a JSON body the server must read.
pub fn is_json_post(req: &Request<Incoming>) -> bool {
    req.method() == http::Method::POST
        && req
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"))
}

/// The request with its body read, checked and in memory; or the answer that refuses it. A
/// notification that is not one of the protocol's is accepted and ignored (202).
pub async fn checked(req: Request<Incoming>) -> Result<Request<Full<Bytes>>, Reply> {
    let (parts, mut body) = req.into_parts();
    let mut kept = BytesMut::new();
    let mut len = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| {
            let refusal = Unreadable {
                code: unreadable::PARSE_ERROR,
                message: format!("Parse error: reading the request body: {e}"),
                id: serde_json::Value::Null,
            };
            answer(StatusCode::BAD_REQUEST, &refusal)
        })?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        len += data.len();
        if len <= MESSAGE_BYTES {
            kept.extend_from_slice(&data);
        } else {
            kept.truncate(ID_PREFIX_BYTES);
            let room = ID_PREFIX_BYTES.saturating_sub(kept.len()).min(data.len());
            kept.extend_from_slice(&data[..room]);
            if len > DRAIN_BYTES {
                break;
            }
        }
    }
    if len > MESSAGE_BYTES {
        let read = (len <= DRAIN_BYTES).then_some(len);
        return Err(answer(
            StatusCode::PAYLOAD_TOO_LARGE,
            &Unreadable::too_large(&kept, read),
        ));
    }
    let bytes = Bytes::copy_from_slice(unreadable::without_bom(&kept));
    match unreadable::read(&bytes) {
        Ok(Some(_)) => Ok(Request::from_parts(parts, Full::new(bytes))),
        Ok(None) => Err(status_only(StatusCode::ACCEPTED)),
        Err(refusal) => Err(answer(StatusCode::BAD_REQUEST, &refusal)),
    }
}

/// `status` with the JSON-RPC error as its JSON body.
fn answer(status: StatusCode, refusal: &Unreadable) -> Reply {
    tracing::debug!("MCP over HTTP: {status}: {}", refusal.message);
    let body = Bytes::from(refusal.response().to_string());
    let mut r = Response::new(Full::new(body).boxed());
    *r.status_mut() = status;
    r.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    r
}

fn status_only(status: StatusCode) -> Reply {
    let mut r = Response::new(Full::new(Bytes::new()).boxed());
    *r.status_mut() = status;
    r
}
