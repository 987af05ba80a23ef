//! A PostgreSQL connection URL that keeps its password to itself: every `Display` and
//! `Debug` shows the URL with the password (in the user part or a `password=` parameter)
//! replaced by `***`, so it can be logged, put in errors and shown on screen.

use std::fmt;

/// `postgres://…` or `postgresql://…`, as given to `--db` or `DOCDECK_DATABASE_URL`.
#[derive(Clone, PartialEq, Eq)]
pub struct PgUrl {
    text: String,
}

/// What stands in for a password wherever a URL is shown.
const MASK: &str = "***";

impl PgUrl {
    /// `Some` when `text` is a PostgreSQL URL (by its scheme); a path or `:memory:` is not.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        let lower = text.get(..13).unwrap_or(text).to_ascii_lowercase();
        (lower.starts_with("postgres://") || lower.starts_with("postgresql://")).then(|| Self {
            text: text.to_owned(),
        })
    }

    /// The URL itself, password included: only for connecting.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.text
    }

    /// The URL with its password masked.
    #[must_use]
    pub fn redacted(&self) -> String {
        redact(&self.text)
    }
}

/// Masks the password of a PostgreSQL URL: `user:PASSWORD@` in the authority and any
/// `password=` query parameter.
fn redact(text: &str) -> String {
    let Some(scheme_end) = text.find("://").map(|at| at + 3) else {
        return text.to_owned();
    };
    let rest = &text[scheme_end..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let mut out = text[..scheme_end].to_owned();
    match authority.rfind('@') {
        Some(at) => {
            let userinfo = &authority[..at];
            match userinfo.find(':') {
                Some(colon) => {
                    out.push_str(&userinfo[..colon]);
                    out.push(':');
                    out.push_str(MASK);
                }
                None => out.push_str(userinfo),
            }
            out.push_str(&authority[at..]);
        }
        None => out.push_str(authority),
    }
    match tail.split_once('?') {
        Some((path, query)) => {
            out.push_str(path);
            out.push('?');
            let params: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((key, _)) if key.eq_ignore_ascii_case("password") => {
                        format!("{key}={MASK}")
                    }
                    _ => pair.to_owned(),
                })
                .collect();
            out.push_str(&params.join("&"));
        }
        None => out.push_str(tail),
    }
    out
}

impl fmt::Display for PgUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.redacted())
    }
}

impl fmt::Debug for PgUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PgUrl({})", self.redacted())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_postgres_schemes_are_urls() {
        assert!(PgUrl::parse("postgres://u@h/db").is_some());
        assert!(PgUrl::parse("PostgreSQL://u@h/db").is_some());
        assert!(PgUrl::parse("service.sqlite").is_none());
        assert!(PgUrl::parse(":memory:").is_none());
        assert!(PgUrl::parse("./postgres://x").is_none());
        assert!(PgUrl::parse("mysql://u@h/db").is_none());
    }

    #[test]
    fn the_password_is_never_shown() {
        let cases = [
            (
                "postgres://app:hunter2@db.local:5432/docdeck",
                "postgres://app:***@db.local:5432/docdeck",
            ),
            (
                "postgresql://app:p%40ss@h/db?sslmode=disable",
                "postgresql://app:***@h/db?sslmode=disable",
            ),
            (
                "postgresql://app@/db?host=/run/pg&password=hunter2",
                "postgresql://app@/db?host=/run/pg&password=***",
            ),
            ("postgres://app:a:b@c@h/db", "postgres://app:***@h/db"),
            ("postgres://h/db", "postgres://h/db"),
        ];
        for (given, shown) in cases {
            let url = PgUrl::parse(given).unwrap();
            assert_eq!(url.to_string(), shown);
            let debug = format!("{url:?}");
            assert!(debug.contains(shown), "{debug}");
            for secret in ["hunter2", "p%40ss", "a:b@c"] {
                assert!(!url.to_string().contains(secret), "{url}");
                assert!(!debug.contains(secret), "{debug}");
            }
        }
    }
}
