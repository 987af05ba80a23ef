//! A PostgreSQL connection URL that keeps its password to itself: every `Display` and
//! `Debug` shows the URL with the password (in the user part or a `password=` parameter)
//! replaced by `***`, so it can be logged, put in errors and shown on screen.

use std::fmt;

/// `postgres://…` or `postgresql://…`, as given to `--db` or `DOCDECK_DATABASE_URL`.
#[derive(Clone, PartialEq, Eq)]
pub struct PgUrl {
    text: String,
}

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
        crate::text::mask_password(&self.text)
    }
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
            // Passwords typed without percent-encoding (the trial of stop 33 saw these
            // three printed in clear).
            (
                "postgres://docdeck:Sec#hunter2@127.0.0.1:5455/docdeck",
                "postgres://docdeck:***@127.0.0.1:5455/docdeck",
            ),
            ("postgres://u:Se?hunter2@h/db", "postgres://u:***@h/db"),
            ("postgres://u:Se/hunter2@h/db", "postgres://u:***@h/db"),
            (
                "postgres://app@/db?password=hun@ter2",
                "postgres://app@/db?password=***",
            ),
        ];
        for (given, shown) in cases {
            let url = PgUrl::parse(given).unwrap();
            assert_eq!(url.to_string(), shown);
            let debug = format!("{url:?}");
            assert!(debug.contains(shown), "{debug}");
            for secret in ["hunter2", "p%40ss", "a:b@c", "ter2"] {
                assert!(!url.to_string().contains(secret), "{url}");
                assert!(!debug.contains(secret), "{debug}");
            }
        }
    }
}
