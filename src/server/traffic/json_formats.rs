//! The JSON line formats: Caddy's access log, Vercel's log drain, Cloudflare's Logpush
//! HTTP requests, and the hosted service's event stream.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use super::{Line, Record};
use crate::api::DateParam;

#[derive(Deserialize)]
struct CaddyLine {
    ts: Option<Value>,
    request: Option<CaddyRequest>,
    status: Option<u16>,
}

#[derive(Deserialize)]
struct CaddyRequest {
    remote_ip: Option<String>,
    client_ip: Option<String>,
    method: String,
    uri: String,
    #[serde(default)]
    headers: serde_json::Map<String, Value>,
}

/// Caddy's JSON access log: `ts` (seconds, or a time string), `request.{remote_ip,
/// client_ip, method, uri, headers}`, `status`. Lines without `request` are other logs.
pub(super) fn caddy(line: &str) -> Result<Line<'static>, String> {
    let entry: CaddyLine = serde_json::from_str(line).map_err(json_error)?;
    let Some(request) = entry.request else {
        return Ok(Line::Other);
    };
    let ts_ms = match entry.ts {
        Some(Value::Number(seconds)) => seconds
            .as_f64()
            .map(|s| (s * 1000.0).round() as i64)
            .ok_or("ts is not a number of seconds")?,
        Some(Value::String(text)) => DateParam::parse("ts", &text)
            .map_err(|e| e.to_string())?
            .millis(),
        _ => return Err("ts is missing".to_owned()),
    };
    let status = entry.status.ok_or("status is missing")?;
    let header = |name: &str| {
        request
            .headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .and_then(|(_, value)| match value {
                Value::Array(values) => values.first().and_then(Value::as_str).map(str::to_owned),
                Value::String(text) => Some(text.clone()),
                _ => None,
            })
    };
    Ok(Line::Request(Record {
        ts_ms,
        user_agent: Some(header("User-Agent").unwrap_or_default().into()),
        accept: header("Accept").map(Cow::Owned),
        referer: header("Referer").map(Cow::Owned),
        method: request.method.into(),
        target: request.uri.into(),
        status,
        ip: request.client_ip.or(request.remote_ip).map(Cow::Owned),
        anon_id: None,
        event_id: None,
    }))
}

#[derive(Deserialize)]
struct MintlifyLine {
    #[serde(rename = "eventType")]
    event_type: String,
    #[serde(default)]
    payload: Option<Value>,
}

/// The hosted service's event stream: `docs.content.view` events are page views and
/// `docs.content.md.view` views of a page's Markdown (a Markdown fetch, as an `Accept:
/// text/markdown` request is in a server log); searches, their clicked results, feedback
/// and the assistant's answers are read by `stream`; other types are other events. The
/// stream's documentation says a payload is a JSON object or a JSON-encoded string.
pub(super) fn mintlify(line: &str) -> Result<Line<'static>, String> {
    let event: MintlifyLine = serde_json::from_str(line).map_err(json_error)?;
    let kind = match event.event_type.as_str() {
        "docs.content.view" => None,
        "docs.content.md.view" => Some(None),
        name => match super::stream::Kind::of(name) {
            Some(kind) => Some(Some(kind)),
            None => return Ok(Line::Event(event.event_type)),
        },
    };
    let mut payload = object(event.payload, "payload")?.ok_or("payload is missing")?;
    let text = |name: &str| match payload.get(name) {
        Some(Value::String(text)) if !text.is_empty() => Some(Cow::Owned(text.clone())),
        _ => None,
    };
    let ts_ms = match payload.get("created_at") {
        Some(Value::String(text)) => DateParam::parse("created_at", text)
            .map_err(|e| e.to_string())?
            .millis(),
        Some(Value::Number(ms)) => ms.as_i64().ok_or("created_at is not whole milliseconds")?,
        _ => return Err("payload.created_at is missing".to_owned()),
    };
    let markdown = kind == Some(None);
    let mut record = Record {
        ts_ms,
        method: Cow::Borrowed("GET"),
        target: text("path").unwrap_or_default(),
        status: 200,
        ip: text("ip"),
        user_agent: Some(text("user_agent").unwrap_or_default()),
        accept: markdown.then_some(Cow::Borrowed("text/markdown")),
        referer: None,
        anon_id: text("anon_id"),
        event_id: text("event_id"),
    };
    if let Some(Some(kind)) = kind {
        record.accept = None;
        let properties = payload.remove("properties");
        let streamed = super::stream::read(kind, &event.event_type, record, properties)?;
        return Ok(Line::Signal(Box::new(streamed)));
    }
    if record.target.is_empty() {
        return Err("payload.path is missing".to_owned());
    }
    if record.anon_id.is_none() && record.ip.is_none() {
        return Err("payload has neither anon_id nor ip, so the visitor is unknown".to_owned());
    }
    Ok(Line::Request(record))
}

/// A JSON object, or a string that holds one (the stream sends its payloads and their
/// properties either way); `None` when absent or null.
pub(super) fn object(
    value: Option<Value>,
    what: &str,
) -> Result<Option<serde_json::Map<String, Value>>, String> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(object)) => Ok(Some(object)),
        Some(Value::String(text)) => match serde_json::from_str(&text) {
            Ok(Value::Object(object)) => Ok(Some(object)),
            Ok(_) => Err(format!("{what} is a string that holds no JSON object")),
            Err(err) => Err(format!("{what} is a string, {}", json_error(err))),
        },
        Some(_) => Err(format!("{what} is neither an object nor a string")),
    }
}

fn json_error(err: serde_json::Error) -> String {
    format!(
        "not valid JSON ({})",
        err.to_string().replace(" at line 1 column", " at column")
    )
}

#[derive(Deserialize)]
struct VercelLine {
    id: Option<String>,
    timestamp: Option<i64>,
    proxy: Option<VercelProxy>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VercelProxy {
    timestamp: Option<i64>,
    method: String,
    path: String,
    #[serde(default)]
    user_agent: Vec<String>,
    status_code: Option<i64>,
    client_ip: Option<String>,
}

/// A Vercel log drain entry (NDJSON): requests carry `proxy.{timestamp, method, path,
/// userAgent, statusCode, clientIp}`; `id` keys the view. Entries without `proxy` (build and
/// function output) are other logs.
pub(super) fn vercel(line: &str) -> Result<Line<'static>, String> {
    let entry: VercelLine = serde_json::from_str(line).map_err(json_error)?;
    let Some(proxy) = entry.proxy else {
        return Ok(Line::Other);
    };
    let ts_ms = proxy
        .timestamp
        .or(entry.timestamp)
        .ok_or("timestamp is missing")?;
    // -1: revalidated in the background, not an answer to a reader.
    let status = proxy
        .status_code
        .and_then(|code| u16::try_from(code).ok())
        .unwrap_or(0);
    Ok(Line::Request(Record {
        ts_ms,
        method: proxy.method.into(),
        target: proxy.path.into(),
        status,
        ip: proxy.client_ip.map(Cow::Owned),
        user_agent: Some(
            proxy
                .user_agent
                .into_iter()
                .next()
                .unwrap_or_default()
                .into(),
        ),
        accept: None,
        referer: None,
        anon_id: None,
        event_id: entry.id.map(Cow::Owned),
    }))
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct CloudflareLine {
    #[serde(rename = "ClientIP")]
    client_ip: Option<String>,
    client_request_method: Option<String>,
    #[serde(rename = "ClientRequestURI")]
    client_request_uri: Option<String>,
    client_request_user_agent: Option<String>,
    edge_response_status: Option<u16>,
    edge_start_timestamp: Option<Value>,
    #[serde(rename = "RayID")]
    ray_id: Option<String>,
}

/// Cloudflare Logpush `http_requests` (NDJSON): `ClientIP`, `ClientRequestMethod`,
/// `ClientRequestURI`, `ClientRequestUserAgent`, `EdgeResponseStatus`,
/// `EdgeStartTimestamp` (RFC 3339, Unix seconds or nanoseconds), and `RayID`, which keys
/// the view.
pub(super) fn cloudflare(line: &str) -> Result<Line<'static>, String> {
    let entry: CloudflareLine = serde_json::from_str(line).map_err(json_error)?;
    let ts_ms = match entry.edge_start_timestamp {
        Some(Value::String(text)) => DateParam::parse("EdgeStartTimestamp", &text)
            .map_err(|e| e.to_string())?
            .millis(),
        Some(Value::Number(number)) => {
            let value = number
                .as_i64()
                .ok_or("EdgeStartTimestamp is not a whole number")?;
            // Nanoseconds (unixnano) are past 1e15; seconds (unix) are not.
            if value > 1_000_000_000_000_000 {
                value / 1_000_000
            } else {
                value * 1000
            }
        }
        _ => return Err("EdgeStartTimestamp is missing".to_owned()),
    };
    Ok(Line::Request(Record {
        ts_ms,
        method: entry
            .client_request_method
            .ok_or("ClientRequestMethod is missing")?
            .into(),
        target: entry
            .client_request_uri
            .ok_or("ClientRequestURI is missing")?
            .into(),
        status: entry
            .edge_response_status
            .ok_or("EdgeResponseStatus is missing")?,
        ip: entry.client_ip.map(Cow::Owned),
        user_agent: Some(entry.client_request_user_agent.unwrap_or_default().into()),
        accept: None,
        referer: None,
        anon_id: None,
        event_id: entry.ray_id.map(Cow::Owned),
    }))
}
