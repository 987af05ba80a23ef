//! What a service states in its answers besides the body: a rate limit, so the client's
//! budget follows the server it talks to; and (the local service) when its views begin
//! and end, so an empty range can be offered the dates that hold views.

use chrono::{DateTime, Utc};
use reqwest::header::{HeaderMap, HeaderValue};

/// The local service's header with the first and last instants of the project's views,
/// `FIRST/LAST` in RFC 3339 (a field of its own contract; the hosted service has none).
pub const VIEWS_SPAN: &str = "docdeck-views-span";

/// When a project's views begin and end, as the local service states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ViewsSpan {
    pub first: DateTime<Utc>,
    pub last: DateTime<Utc>,
}

impl ViewsSpan {
    #[must_use]
    pub fn from_millis(first: i64, last: i64) -> Option<Self> {
        Some(Self {
            first: DateTime::from_timestamp_millis(first)?,
            last: DateTime::from_timestamp_millis(last)?,
        })
    }

    /// The header's value.
    #[must_use]
    pub fn header(&self) -> HeaderValue {
        let text = format!(
            "{}/{}",
            super::format_timestamp(&self.first),
            super::format_timestamp(&self.last)
        );
        HeaderValue::from_str(&text).unwrap_or(HeaderValue::from_static(""))
    }

    /// The span the headers state, if they state one that reads.
    #[must_use]
    pub fn from_headers(headers: &HeaderMap) -> Option<Self> {
        let text = headers.get(VIEWS_SPAN)?.to_str().ok()?;
        let (first, last) = text.split_once('/')?;
        let read = |t: &str| {
            DateTime::parse_from_rfc3339(t.trim())
                .ok()
                .map(|d| d.to_utc())
        };
        let (first, last) = (read(first)?, read(last)?);
        (first <= last).then_some(Self { first, last })
    }
}

/// What the last analytics answer stated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stated {
    pub limit: Option<StatedLimit>,
    pub span: Option<ViewsSpan>,
}

impl Stated {
    /// Takes what `headers` state: a limit stays until another is stated; the span is
    /// the answer's own (none when it states none).
    pub fn note(&mut self, headers: &HeaderMap) {
        if let Some(limit) = StatedLimit::from_headers(headers) {
            self.limit = Some(limit);
        }
        self.span = ViewsSpan::from_headers(headers);
    }
}

/// A rate limit as a service states it in standard headers (`RateLimit-Limit`,
/// `RateLimit-Remaining`, `RateLimit-Reset`, or their `X-RateLimit-*` forms): the
/// client's budget follows it rather than the hosted service's documented figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatedLimit {
    /// Requests allowed in the service's window.
    pub limit: u32,
    pub remaining: Option<u32>,
}

impl StatedLimit {
    /// The limit the headers state, if they state one.
    #[must_use]
    pub fn from_headers(headers: &HeaderMap) -> Option<Self> {
        let number = |names: [&str; 2]| {
            names.iter().find_map(|name| {
                headers
                    .get(*name)
                    .and_then(|value| value.to_str().ok())
                    .and_then(|text| text.trim().parse::<u32>().ok())
            })
        };
        Some(Self {
            limit: number(["ratelimit-limit", "x-ratelimit-limit"])?,
            remaining: number(["ratelimit-remaining", "x-ratelimit-remaining"]),
        })
    }
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    #[test]
    fn a_views_span_reads_back_and_a_wrong_one_is_none() {
        let span = ViewsSpan::from_millis(1_431_857_103_000, 1_432_155_915_000).unwrap();
        let mut headers = HeaderMap::new();
        headers.insert(VIEWS_SPAN, span.header());
        assert_eq!(
            headers[VIEWS_SPAN],
            "2015-05-17T10:05:03.000Z/2015-05-20T21:05:15.000Z"
        );
        assert_eq!(ViewsSpan::from_headers(&headers), Some(span));
        headers.insert(
            VIEWS_SPAN,
            HeaderValue::from_static("2015-05-20T00:00:00Z/2015-05-17T00:00:00Z"),
        );
        assert_eq!(ViewsSpan::from_headers(&headers), None, "backwards");
        headers.insert(VIEWS_SPAN, HeaderValue::from_static("yesterday"));
        assert_eq!(ViewsSpan::from_headers(&headers), None);
    }

    #[test]
    fn a_stated_limit_is_read_from_either_header_form() {
        let mut headers = HeaderMap::new();
        assert_eq!(StatedLimit::from_headers(&headers), None);
        headers.insert("x-ratelimit-limit", HeaderValue::from_static("600"));
        headers.insert("x-ratelimit-remaining", HeaderValue::from_static("12"));
        assert_eq!(
            StatedLimit::from_headers(&headers),
            Some(StatedLimit {
                limit: 600,
                remaining: Some(12)
            })
        );
        headers.insert("RateLimit-Limit", HeaderValue::from_static(" 1000 "));
        assert_eq!(
            StatedLimit::from_headers(&headers).map(|s| s.limit),
            Some(1000)
        );
        headers.insert("RateLimit-Limit", HeaderValue::from_static("100;w=3600"));
        headers.remove("x-ratelimit-limit");
        assert_eq!(
            StatedLimit::from_headers(&headers),
            None,
            "not a plain number"
        );
    }
}
