//! The visitors query: date parameters, limit and offset, and the paging rule. The client
//! checks a query with these rules before sending it; the local service parses with them.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, NaiveTime, SecondsFormat, Utc};
use thiserror::Error;

/// Rows per page when `limit` is not given.
pub const DEFAULT_LIMIT: u32 = 50;
/// Largest `limit` the service accepts.
pub const MAX_LIMIT: u32 = 250;

const DATE_HELP: &str = "use YYYY-MM-DD or an RFC 3339 time such as 2024-01-31T12:00:00Z";

/// Every form a date parameter may take, as a regular expression: `YYYY-MM-DD`, or that
/// date, `T`, `HH:MM`, optional `:SS` and fraction, and an optional `Z` or `±HH:MM`
/// (none means UTC). The service's OpenAPI document gives it as the `pattern` of
/// `dateFrom` and `dateTo`; a test keeps the two equal and checks it against the parser.
/// What it cannot say: a day the month does not have (`2024-02-30`) is refused too.
pub const DATE_PATTERN: &str = r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])([Tt]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]+)?)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?)?$";

/// A query the service would refuse, found before sending it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum QueryError {
    #[error("{field} {value:?} is not a valid date: {DATE_HELP}")]
    BadDate { field: &'static str, value: String },
    #[error("{field} {value:?} is not a whole number: {expected}")]
    NotWholeNumber {
        field: &'static str,
        value: String,
        expected: &'static str,
    },
    /// `value` is already quoted, with its blank space escaped so that it shows.
    #[error("{field} {value} has blank space around it: send the date alone, such as 2024-01-31")]
    Padded { field: &'static str, value: String },
    #[error("limit {0} is out of range: it must be between 1 and {MAX_LIMIT}")]
    LimitOutOfRange(String),
    #[error("offset {0} is out of range: it must be 0 or more")]
    OffsetOutOfRange(String),
    #[error("{0} was given more than once")]
    Repeated(String),
    #[error(
        "dateFrom {from} is after dateTo {to}: dateFrom is the first instant included, dateTo the first excluded"
    )]
    Reversed { from: String, to: String },
    #[error(
        "dateFrom and dateTo are both {0}, which selects nothing: dateTo is exclusive, so use the day after the last day you want"
    )]
    EmptyRange(String),
}

/// A `dateFrom`/`dateTo` value. `YYYY-MM-DD` means 00:00 UTC of that day; a time with an
/// offset is converted to UTC; a time without one is taken as UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateParam {
    instant: DateTime<Utc>,
    date_only: bool,
}

impl DateParam {
    /// Parses a date as the interface allows it (the forms of [`DATE_PATTERN`]; blank
    /// space around it is ignored). `field` names the parameter in the error.
    pub fn parse(field: &'static str, value: &str) -> Result<Self, QueryError> {
        parse_date_text(value.trim()).ok_or_else(|| QueryError::BadDate {
            field,
            value: crate::text::excerpt(value, 64),
        })
    }

    /// 00:00 UTC on `date`, sent as `YYYY-MM-DD`.
    #[must_use]
    pub fn from_date(date: NaiveDate) -> Self {
        Self {
            instant: date.and_time(NaiveTime::MIN).and_utc(),
            date_only: true,
        }
    }

    /// An exact instant, sent as RFC 3339 in UTC.
    #[must_use]
    pub fn from_instant(instant: DateTime<Utc>) -> Self {
        Self {
            instant,
            date_only: false,
        }
    }

    /// The instant the parameter stands for.
    #[must_use]
    pub fn instant(&self) -> DateTime<Utc> {
        self.instant
    }

    /// Milliseconds since the Unix epoch, the unit the local service stores.
    #[must_use]
    pub fn millis(&self) -> i64 {
        self.instant.timestamp_millis()
    }
}

impl DateParam {
    /// How people read one side of a range: the day alone when it falls on a UTC
    /// midnight, otherwise the wire form; `open` for a side left open. What it shows
    /// reads back as the same date.
    #[must_use]
    pub fn shown(side: Option<Self>, open: &str) -> String {
        side.map_or_else(
            || open.to_owned(),
            |d| {
                if d.instant.time() == chrono::NaiveTime::MIN {
                    d.instant.format("%Y-%m-%d").to_string()
                } else {
                    d.to_string()
                }
            },
        )
    }
}

impl fmt::Display for DateParam {
    /// The form sent on the wire: the date alone when it was given as a date, otherwise
    /// RFC 3339 in UTC so no service has to guess a time zone.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.date_only {
            write!(f, "{}", self.instant.format("%Y-%m-%d"))
        } else {
            f.write_str(&self.instant.to_rfc3339_opts(SecondsFormat::AutoSi, true))
        }
    }
}

impl FromStr for DateParam {
    type Err = QueryError;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        Self::parse("date", value)
    }
}

/// A request for one page of visitors. `None` fields are left out of the request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VisitorsQuery {
    pub date_from: Option<DateParam>,
    pub date_to: Option<DateParam>,
    pub limit: Option<u32>,
    pub offset: Option<u64>,
}

/// `dateFrom`, `dateTo` and `limit` as every analytics endpoint takes them, in this
/// order, each only when given.
pub(crate) fn range_pairs(
    from: Option<DateParam>,
    to: Option<DateParam>,
    limit: Option<u32>,
) -> Vec<(&'static str, String)> {
    let dates = [("dateFrom", from), ("dateTo", to)].into_iter();
    (dates.filter_map(|(name, date)| Some((name, date?.to_string()))))
        .chain(limit.map(|limit| ("limit", limit.to_string())))
        .collect()
}

impl VisitorsQuery {
    /// The client's rule: everything the service checks, and an empty range is refused too
    /// because `dateTo` is exclusive and equal dates are always a mistake.
    pub fn validate(&self) -> Result<(), QueryError> {
        if let Some(limit) = self.limit
            && !(1..=MAX_LIMIT).contains(&limit)
        {
            return Err(QueryError::LimitOutOfRange(limit.to_string()));
        }
        self.check_range()?;
        if let (Some(from), Some(to)) = (self.date_from, self.date_to)
            && from.instant == to.instant
        {
            return Err(QueryError::EmptyRange(from.to_string()));
        }
        Ok(())
    }

    /// The service's rule: parses raw query pairs, rejecting what the interface forbids.
    /// Unknown parameters are ignored; a known one given twice is an error.
    pub fn from_pairs<'a, I>(pairs: I) -> Result<Self, QueryError>
    where
        I: IntoIterator<Item = (&'a str, &'a str)>,
    {
        let mut query = Self::default();
        let mut seen = Vec::new();
        for (key, value) in pairs {
            if ["dateFrom", "dateTo", "limit", "offset"].contains(&key) {
                if seen.contains(&key) {
                    return Err(QueryError::Repeated(key.to_owned()));
                }
                seen.push(key);
            }
            match key {
                "dateFrom" => query.date_from = Some(parse_sent_date("dateFrom", value)?),
                "dateTo" => query.date_to = Some(parse_sent_date("dateTo", value)?),
                "limit" => query.limit = Some(parse_limit(value)?),
                "offset" => query.offset = Some(parse_offset(value)?),
                _ => {}
            }
        }
        query.check_range()?;
        Ok(query)
    }

    fn check_range(&self) -> Result<(), QueryError> {
        match (self.date_from, self.date_to) {
            (Some(from), Some(to)) if from.instant > to.instant => Err(QueryError::Reversed {
                from: from.to_string(),
                to: to.to_string(),
            }),
            _ => Ok(()),
        }
    }

    /// The query string pairs, in a stable order.
    #[must_use]
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let mut pairs = range_pairs(self.date_from, self.date_to, self.limit);
        if let Some(offset) = self.offset {
            pairs.push(("offset", offset.to_string()));
        }
        pairs
    }

    /// The limit the service applies.
    #[must_use]
    pub fn effective_limit(&self) -> u32 {
        self.limit.unwrap_or(DEFAULT_LIMIT)
    }

    /// The offset the service applies.
    #[must_use]
    pub fn effective_offset(&self) -> u64 {
        self.offset.unwrap_or(0)
    }

    /// The query for the page after this one: `offset` increased by `limit`.
    #[must_use]
    pub fn next_page(&self) -> Self {
        let mut next = self.clone();
        next.offset = Some(self.effective_offset() + u64::from(self.effective_limit()));
        next
    }

    /// The 1-based page number this query asks for (`offset = (page - 1) * limit`).
    #[must_use]
    pub fn page_number(&self) -> u64 {
        self.effective_offset() / u64::from(self.effective_limit().max(1)) + 1
    }
}

/// A date as sent in a query: exactly one of the documented forms, nothing around it.
pub(crate) fn parse_sent_date(field: &'static str, value: &str) -> Result<DateParam, QueryError> {
    if value.trim() != value && !value.trim().is_empty() {
        return Err(QueryError::Padded {
            field,
            value: crate::text::excerpt(&format!("{value:?}"), 64),
        });
    }
    DateParam::parse(field, value)
}

/// The forms of [`DATE_PATTERN`], read by hand so that the pattern and the parser agree
/// exactly; the calendar checks (the day exists, the year stays within 0000-9999 in UTC)
/// are chrono's.
fn parse_date_text(text: &str) -> Option<DateParam> {
    let digits = |range: std::ops::Range<usize>| -> Option<u32> {
        let part = text.get(range)?;
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let bytes = text.as_bytes();
    if bytes.len() < 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return None;
    }
    let year = i32::try_from(digits(0..4)?).ok()?;
    let date = NaiveDate::from_ymd_opt(year, digits(5..7)?, digits(8..10)?)?;
    if bytes.len() == 10 {
        return Some(DateParam::from_date(date));
    }
    if !matches!(bytes[10], b'T' | b't') || bytes.get(13) != Some(&b':') {
        return None;
    }
    let (hour, minute) = (digits(11..13)?, digits(14..16)?);
    let (mut second, mut nanos, mut end) = (0, 0, 16);
    if bytes.get(16) == Some(&b':') {
        second = digits(17..19)?;
        end = 19;
        if bytes.get(19) == Some(&b'.') {
            let count = bytes[20..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if count == 0 {
                return None;
            }
            // Nanoseconds from the first nine digits; finer digits cannot be stored.
            let kept = &text[20..20 + count.min(9)];
            nanos = format!("{kept:0<9}").parse().ok()?;
            end = 20 + count;
        }
    }
    let rest = text.get(end..)?;
    let offset = match rest {
        "" | "Z" | "z" => FixedOffset::east_opt(0)?,
        _ => parse_offset_text(rest)?,
    };
    let time = NaiveTime::from_hms_nano_opt(hour, minute, second, nanos)?;
    let local = date.and_time(time).and_local_timezone(offset).single()?;
    let instant = local.with_timezone(&Utc);
    (0..=9999)
        .contains(&instant.year())
        .then(|| DateParam::from_instant(instant))
}

/// `+HH:MM` or `-HH:MM`.
fn parse_offset_text(text: &str) -> Option<FixedOffset> {
    let bytes = text.as_bytes();
    if bytes.len() != 6
        || bytes[3] != b':'
        || !bytes[1..3]
            .iter()
            .chain(&bytes[4..])
            .all(u8::is_ascii_digit)
    {
        return None;
    }
    let hours: i32 = text[1..3].parse().ok()?;
    let minutes: i32 = text[4..6].parse().ok()?;
    if hours > 23 || minutes > 59 {
        return None;
    }
    let seconds = hours * 3600 + minutes * 60;
    match bytes[0] {
        b'+' => FixedOffset::east_opt(seconds),
        b'-' => FixedOffset::west_opt(seconds),
        _ => None,
    }
}

/// `Ok` when `value` is written as a whole number (digits, with an optional sign), however
/// large: such a value is out of range rather than not a number. Otherwise the refusal
/// names `field` and says what to send (`expected`).
pub(crate) fn whole_number(
    field: &'static str,
    value: &str,
    expected: &'static str,
) -> Result<(), QueryError> {
    let digits = value.strip_prefix(['+', '-']).unwrap_or(value);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(());
    }
    Err(QueryError::NotWholeNumber {
        field,
        value: crate::text::excerpt(value, 32),
        expected,
    })
}

fn parse_limit(value: &str) -> Result<u32, QueryError> {
    whole_number("limit", value, "send one from 1 to 250, such as 50")?;
    value
        .parse::<u32>()
        .ok()
        .filter(|limit| (1..=MAX_LIMIT).contains(limit))
        .ok_or_else(|| QueryError::LimitOutOfRange(crate::text::excerpt(value, 32)))
}

/// Any whole number from 0 up: the documents set no maximum, and an offset past every row
/// is an empty page, so one too large for any integer type is held at `i64::MAX` (the
/// most the database takes), which gives that same empty page.
fn parse_offset(value: &str) -> Result<u64, QueryError> {
    whole_number("offset", value, "send 0 or more, such as 100")?;
    let digits = value.strip_prefix('+').unwrap_or(value);
    if digits.starts_with('-') && digits.bytes().skip(1).any(|b| b != b'0') {
        return Err(QueryError::OffsetOutOfRange(crate::text::excerpt(
            value, 32,
        )));
    }
    let most = i64::MAX.unsigned_abs();
    Ok(digits
        .trim_start_matches('-')
        .parse::<u64>()
        .map_or(most, |offset| offset.min(most)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(value: &str) -> DateParam {
        DateParam::parse("dateFrom", value).unwrap()
    }

    #[test]
    fn dates_and_times_in_every_accepted_form() {
        assert_eq!(date("2024-01-31").to_string(), "2024-01-31");
        assert_eq!(date("2024-01-31").millis(), 1_706_659_200_000);
        assert_eq!(
            date("2024-01-31T02:00:00+02:00").instant(),
            date("2024-01-31").instant()
        );
        assert_eq!(
            date("2024-01-31T00:00:00").instant(),
            date("2024-01-31").instant()
        );
        assert_eq!(date("2024-01-31T10:30").to_string(), "2024-01-31T10:30:00Z");
        assert_eq!(
            date("2024-01-31T10:30:00.250Z").to_string(),
            "2024-01-31T10:30:00.250Z"
        );
    }

    #[test]
    fn impossible_and_malformed_dates_are_refused_with_the_field_named() {
        for bad in [
            "2024-02-30",
            "2024-13-01",
            "31/01/2024",
            "",
            "2024-1-5",
            "today",
        ] {
            let err = DateParam::parse("dateTo", bad).unwrap_err();
            assert!(err.to_string().starts_with("dateTo"), "{bad}: {err}");
        }
    }

    #[test]
    fn client_refuses_out_of_range_limits_and_empty_or_reversed_ranges() {
        let mut query = VisitorsQuery {
            limit: Some(0),
            ..VisitorsQuery::default()
        };
        assert!(matches!(
            query.validate(),
            Err(QueryError::LimitOutOfRange(_))
        ));
        query.limit = Some(250);
        assert_eq!(query.validate(), Ok(()));
        query.date_from = Some(date("2024-02-01"));
        query.date_to = Some(date("2024-01-01"));
        assert!(matches!(query.validate(), Err(QueryError::Reversed { .. })));
        query.date_to = Some(date("2024-02-01T00:00:00Z"));
        assert!(matches!(query.validate(), Err(QueryError::EmptyRange(_))));
    }

    #[test]
    fn service_parses_pairs_and_allows_an_empty_range() {
        let query = VisitorsQuery::from_pairs([
            ("dateFrom", "2024-01-01"),
            ("dateTo", "2024-01-01"),
            ("limit", "10"),
            ("offset", "20"),
            ("utm", "x"),
        ])
        .unwrap();
        assert_eq!(query.effective_limit(), 10);
        assert_eq!(query.page_number(), 3);
        for (pairs, expected) in [
            (vec![("limit", "251")], "limit"),
            (vec![("limit", "-1")], "limit"),
            (vec![("offset", "-5")], "offset"),
            (
                vec![("limit", "5"), ("limit", "6")],
                "limit was given more than once",
            ),
            (
                vec![("dateFrom", "2024-01-02"), ("dateTo", "2024-01-01")],
                "after",
            ),
        ] {
            let err = VisitorsQuery::from_pairs(pairs).unwrap_err().to_string();
            assert!(err.contains(expected), "{err}");
        }
    }

    #[test]
    fn next_page_adds_limit_to_offset() {
        let first = VisitorsQuery {
            limit: Some(25),
            ..VisitorsQuery::default()
        };
        let second = first.next_page();
        assert_eq!(second.offset, Some(25));
        assert_eq!(second.next_page().offset, Some(50));
        assert_eq!(VisitorsQuery::default().next_page().offset, Some(50));
    }
}
