//! A rate limit as a service states it in its answers, so the client's budget follows the
//! server it talks to.

use reqwest::header::HeaderMap;

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
