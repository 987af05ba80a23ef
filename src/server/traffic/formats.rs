//! The record formats `docdeck import` reads besides JSON lines: nginx/Apache combined and
//! common logs here; Caddy, Vercel and Cloudflare JSON logs and the hosted service's event
//! stream in `json_formats.rs`. Each line becomes a [`Record`], is not a request at all,
//! or is broken.

#[path = "json_formats.rs"]
mod json;
#[path = "stream.rs"]
pub mod stream;

use std::borrow::Cow;

/// A request as a log line records it. Text fields borrow from the line where they can
/// (the access-log formats): an import reads millions of lines, and allocating each field
/// of each line was a measurable share of its time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record<'a> {
    pub ts_ms: i64,
    pub method: Cow<'a, str>,
    /// The request target as written: path, query and all.
    pub target: Cow<'a, str>,
    pub status: u16,
    pub ip: Option<Cow<'a, str>>,
    /// `None` where the format records none (the common log format).
    pub user_agent: Option<Cow<'a, str>>,
    pub accept: Option<Cow<'a, str>>,
    /// The page the request came from (`Referer`), where the format records it.
    pub referer: Option<Cow<'a, str>>,
    /// The visitor, where the format has one.
    pub anon_id: Option<Cow<'a, str>>,
    /// A unique id of the event, where the format has one.
    pub event_id: Option<Cow<'a, str>>,
}

/// What one line holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line<'a> {
    Request(Record<'a>),
    /// A well-formed line that records no request (a server message).
    Other,
    /// An event of another type in an event stream (its name), which no page view is.
    Event(String),
    /// A search, a clicked result, feedback or an assistant's answer from an event stream.
    Signal(Box<stream::Streamed>),
}

/// Which of the log formats a line is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Combined,
    Common,
    Caddy,
    Mintlify,
    Vercel,
    Cloudflare,
}

impl LogFormat {
    /// Every format, the more precise first (a combined line also reads as common).
    pub const ALL: [Self; 6] = [
        Self::Combined,
        Self::Common,
        Self::Caddy,
        Self::Mintlify,
        Self::Vercel,
        Self::Cloudflare,
    ];
}

/// Reads nginx times, remembering the last day seen, since a log stays on one day for
/// many lines.
#[derive(Debug, Default)]
pub struct Clock {
    day: Option<(String, i64)>,
}

impl Clock {
    /// `20/Nov/2026:09:14:03 +0100` in ms since the epoch.
    fn nginx(&mut self, text: &str) -> Result<i64, String> {
        let bad = || {
            format!(
                "time [{}] is not like [10/Oct/2026:13:55:36 +0000]",
                crate::text::excerpt(text, 40)
            )
        };
        let bytes = text.as_bytes();
        if bytes.len() != 26 || bytes[11] != b':' || bytes[20] != b' ' {
            return Err(bad());
        }
        let day = &text[..11];
        let day_ms = match &self.day {
            Some((last, ms)) if last == day => *ms,
            _ => {
                let date = chrono::NaiveDate::parse_from_str(day, "%d/%b/%Y").map_err(|_| bad())?;
                let ms = date
                    .and_time(chrono::NaiveTime::MIN)
                    .and_utc()
                    .timestamp_millis();
                self.day = Some((day.to_owned(), ms));
                ms
            }
        };
        let number = |at: usize| -> Option<i64> {
            let pair = bytes.get(at..at + 2)?;
            pair.iter()
                .all(u8::is_ascii_digit)
                .then(|| i64::from(pair[0] - b'0') * 10 + i64::from(pair[1] - b'0'))
        };
        let (Some(h), Some(m), Some(s), Some(oh), Some(om)) =
            (number(12), number(15), number(18), number(22), number(24))
        else {
            return Err(bad());
        };
        let sign = match bytes[21] {
            b'+' => 1,
            b'-' => -1,
            _ => return Err(bad()),
        };
        if h > 23 || m > 59 || s > 60 || bytes[14] != b':' || bytes[17] != b':' {
            return Err(bad());
        }
        let local = day_ms + ((h * 60 + m) * 60 + s) * 1000;
        Ok(local - sign * (oh * 60 + om) * 60_000)
    }
}

/// Reads one non-blank line.
pub fn parse<'a>(format: LogFormat, line: &'a str, clock: &mut Clock) -> Result<Line<'a>, String> {
    match format {
        LogFormat::Combined => nginx(line, true, clock),
        LogFormat::Common => nginx(line, false, clock),
        LogFormat::Caddy => json::caddy(line),
        LogFormat::Mintlify => json::mintlify(line),
        LogFormat::Vercel => json::vercel(line),
        LogFormat::Cloudflare => json::cloudflare(line),
    }
}

/// The log format that reads the most of `lines` (a file's first few) as requests, the
/// first of equals in the order of [`LogFormat::ALL`]; `None` when none reads any.
#[must_use]
pub fn detect(lines: &[&str]) -> Option<LogFormat> {
    let mut best = None;
    let mut most = 0;
    for format in LogFormat::ALL {
        let mut clock = Clock::default();
        let read = lines
            .iter()
            .filter(|line| matches!(parse(format, line, &mut clock), Ok(Line::Request(_))))
            .count();
        if read > most {
            most = read;
            best = Some(format);
        }
    }
    best
}

/// `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent`, and for
/// combined ` "$http_referer" "$http_user_agent"` (anything after them is ignored).
fn nginx<'a>(line: &'a str, combined: bool, clock: &mut Clock) -> Result<Line<'a>, String> {
    let (ip, rest) = line.split_once(' ').ok_or("cut short before the time")?;
    let open = rest.find('[').ok_or("no [time]")?;
    let close = rest[open..].find(']').ok_or("cut short in the time")? + open;
    let ts_ms = clock.nginx(&rest[open + 1..close])?;
    let rest = rest[close + 1..].trim_start();
    let (request, rest) = quoted(rest).ok_or("cut short in the request line")?;
    let rest = rest.trim_start();
    let mut fields = rest.split_ascii_whitespace();
    let status = fields
        .next()
        .and_then(|text| text.parse::<u16>().ok())
        .ok_or("no status after the request line")?;
    fields.next().ok_or("cut short after the status")?;
    let mut parts = request.split(' ');
    let (Some(method), Some(target), Some(_protocol), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!(
            "the request line \"{}\" is not METHOD PATH PROTOCOL",
            crate::text::excerpt(request, 20)
        ));
    };
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(format!(
            "\"{}\" is not a request method",
            crate::text::excerpt(method, 20)
        ));
    }
    let (referer, user_agent) = if combined {
        let after = rest
            .splitn(3, |c: char| c.is_ascii_whitespace())
            .nth(2)
            .unwrap_or("");
        let (referer, after) =
            quoted(after.trim_start()).ok_or("cut short before the referer and user agent")?;
        let (agent, _) = quoted(after.trim_start()).ok_or("cut short before the user agent")?;
        let referer = (referer != "-").then_some(Cow::Borrowed(referer));
        (referer, Some(Cow::Borrowed(agent)))
    } else {
        (None, None)
    };
    Ok(Line::Request(Record {
        ts_ms,
        method: Cow::Borrowed(method),
        target: Cow::Borrowed(target),
        status,
        ip: Some(Cow::Borrowed(ip)),
        user_agent,
        accept: None,
        referer,
        anon_id: None,
        event_id: None,
    }))
}

/// `"text" rest` → (`text`, `rest`); a backslash escapes the next character.
fn quoted(text: &str) -> Option<(&str, &str)> {
    let body = text.strip_prefix('"')?;
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some((&body[..i], &body[i + 1..])),
            _ => i += 1,
        }
    }
    None
}

/// Whether an `Accept` header prefers Markdown or plain text over HTML.
#[must_use]
pub fn prefers_markdown(accept: &str) -> bool {
    let mut best: Option<(f32, &str)> = None;
    for item in accept.split(',') {
        let mut parts = item.split(';');
        let kind = parts.next().unwrap_or_default().trim();
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q="))
            .find_map(|q| q.parse::<f32>().ok())
            .unwrap_or(1.0);
        if best.is_none_or(|(top, _)| q > top) {
            best = Some((q, kind));
        }
    }
    best.is_some_and(|(_, kind)| {
        ["text/markdown", "text/x-markdown", "text/plain"]
            .iter()
            .any(|md| kind.eq_ignore_ascii_case(md))
    })
}

#[cfg(test)]
#[path = "formats_tests.rs"]
mod tests;
