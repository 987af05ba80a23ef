//! The type of every secret (the API key, tokens, passwords): it can be used, but never
//! printed by accident. A base type, below the client settings and the service alike.

use std::fmt;

/// Holds the API key. `Debug` and `Display` print a redaction, so the key cannot reach a
/// log line, an error message, a panic message or a snapshot through formatting.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    #[must_use]
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The key itself, for the one place that needs it: the `Authorization` header.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// A warning when the key does not have the `<prefix>_<secret>` shape of an admin key,
    /// or looks like one of the service's other key types, which these endpoints refuse.
    #[must_use]
    pub fn shape_warning(&self) -> Option<String> {
        let key = self.0.as_str();
        let shaped = key.split_once('_').is_some_and(|(prefix, rest)| {
            !prefix.is_empty()
                && prefix.chars().all(|c| c.is_ascii_alphanumeric())
                && !rest.is_empty()
        });
        if !shaped {
            return Some(
                "the API key does not look like <prefix>_<secret> (admin keys start with mint_): check that the whole key was copied"
                    .to_owned(),
            );
        }
        if key.starts_with("mint_dsc_") {
            return Some("the API key looks like an assistant key (mint_dsc_): these endpoints need an admin key (mint_)".to_owned());
        }
        if key.starts_with("mint_us_") {
            return Some("the API key looks like an index key (mint_us_): these endpoints need an admin key (mint_)".to_owned());
        }
        None
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formatting_never_shows_the_key() {
        let key = Secret::new("mint_supersecret");
        assert!(!format!("{key} {key:?} {:?}", Some(&key)).contains("supersecret"));
        assert_eq!(key.expose(), "mint_supersecret");
    }

    #[test]
    fn shape_warnings() {
        assert_eq!(Secret::new("mint_abc123").shape_warning(), None);
        assert_eq!(Secret::new("other_abc").shape_warning(), None);
        assert!(Secret::new("abc123").shape_warning().is_some());
        assert!(Secret::new("mint_").shape_warning().is_some());
        assert!(Secret::new("_abc").shape_warning().is_some());
        assert!(
            Secret::new("mint_dsc_x")
                .shape_warning()
                .unwrap()
                .contains("assistant")
        );
        assert!(
            Secret::new("mint_us_x")
                .shape_warning()
                .unwrap()
                .contains("index")
        );
    }
}
