//! The visitors-insight settings of `config.toml`: prompt templates (`[templates]`: a
//! name and a text in which `{pages}` becomes the pages marked in the visitors table with
//! their numbers; the composer offers them after the built-in ones of
//! `crate::insight::templates`), and `[visitors] max_rows`, the most rows held to sort,
//! filter or compare a whole range. A mistake names the file and its line.

use std::collections::BTreeMap;
use std::path::Path;

use super::ConfigError;

/// Where the marked pages go in a template's text.
pub const PAGES_PLACEHOLDER: &str = "{pages}";

/// A prompt template: what the composer offers by `name`, and the `text` it starts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub name: String,
    pub text: String,
}

/// The `[templates]` table as read, with where each entry stands in the file.
pub(super) type RawTemplates = BTreeMap<toml::Spanned<String>, toml::Spanned<String>>;

/// The most rows `[visitors] max_rows` may ask for: 100 requests of 250, an hour's whole
/// analytics budget (`crate::insight::whole::MOST_MAX_ROWS`, kept equal by a test).
pub const MOST_MAX_ROWS: usize = 25_000;

/// The `[visitors]` table as read.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawVisitors {
    max_rows: Option<toml::Spanned<i64>>,
}

/// `max_rows` of `[visitors]`, checked: a whole number from 1 to [`MOST_MAX_ROWS`].
pub(super) fn check_visitors(
    raw: &RawVisitors,
    source: &str,
    path: &Path,
) -> Result<Option<usize>, ConfigError> {
    let Some(rows) = &raw.max_rows else {
        return Ok(None);
    };
    usize::try_from(*rows.get_ref())
        .ok()
        .filter(|n| (1..=MOST_MAX_ROWS).contains(n))
        .map(Some)
        .ok_or_else(|| ConfigError::Entry {
            path: path.to_path_buf(),
            line: line_of(source, rows.span().start),
            reason: format!(
                "max_rows {} is out of range: give 1 to {MOST_MAX_ROWS} (the default is 5000)",
                rows.get_ref()
            ),
        })
}

/// The line (from 1) of byte `at` of `source`.
fn line_of(source: &str, at: usize) -> usize {
    source
        .get(..at)
        .map_or(1, |before| before.matches('\n').count() + 1)
}

/// The templates of a file, in name order, each checked: a name with something in it,
/// and a text with [`PAGES_PLACEHOLDER`]. A mistake names the file and its line.
pub(super) fn check(
    raw: &RawTemplates,
    source: &str,
    path: &Path,
) -> Result<Vec<Template>, ConfigError> {
    let mut templates = Vec::with_capacity(raw.len());
    for (name, text) in raw {
        let fault = |reason: String| ConfigError::Entry {
            path: path.to_path_buf(),
            line: line_of(source, name.span().start),
            reason,
        };
        let shown = crate::text::excerpt(name.get_ref(), 40);
        if name.get_ref().trim().is_empty() {
            return Err(fault(
                "a template needs a name: write it before the =".to_owned(),
            ));
        }
        if !text.get_ref().contains(PAGES_PLACEHOLDER) {
            return Err(fault(format!(
                "template {shown:?} has no {PAGES_PLACEHOLDER}: put {PAGES_PLACEHOLDER} where the marked pages and their numbers go"
            )));
        }
        templates.push(Template {
            name: name.get_ref().trim().to_owned(),
            text: text.get_ref().clone(),
        });
    }
    Ok(templates)
}

#[cfg(test)]
mod tests {
    use super::super::{Overrides, Settings};
    use super::*;

    fn load(text: &str) -> Result<Settings, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, text).unwrap();
        let overrides = Overrides {
            config: Some(path),
            ..Overrides::default()
        };
        Settings::load(&overrides, &|_| None)
    }

    #[test]
    fn templates_are_read_in_name_order_beside_the_profiles() {
        let settings = load(
            "[profiles.default]\nproject_id = \"p\"\n\n[templates]\n\
             translate = \"Translate into Spanish:\\n{pages}\"\n\
             \"add examples\" = '''\nAdd an example to each of:\n{pages}\n'''\n",
        )
        .unwrap();
        let names: Vec<&str> = settings.templates.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["add examples", "translate"]);
        assert_eq!(
            settings.templates[1].text,
            "Translate into Spanish:\n{pages}"
        );
        assert!(load("").unwrap().templates.is_empty());
    }

    #[test]
    fn a_template_without_the_placeholder_names_its_line() {
        let err = load("[templates]\nok = \"{pages}\"\n\nbroken = \"Fix these\"\n").unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("config.toml, line 4: template \"broken\" has no {pages}"),
            "{text}"
        );
        assert!(
            text.contains("put {pages} where the marked pages"),
            "{text}"
        );
    }

    #[test]
    fn the_whole_range_threshold_is_read_and_checked() {
        let settings = load("[visitors]\nmax_rows = 1000\n").unwrap();
        assert_eq!(settings.visitors_max_rows, Some(1000));
        assert_eq!(load("").unwrap().visitors_max_rows, None);
        for bad in ["0", "25001", "-3"] {
            let err = load(&format!("\n[visitors]\nmax_rows = {bad}\n"))
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("line 3: max_rows") && err.contains("1 to 25000"),
                "{err}"
            );
        }
        assert_eq!(MOST_MAX_ROWS, crate::insight::whole::MOST_MAX_ROWS);
    }

    #[test]
    fn a_blank_name_or_a_text_that_is_not_text_is_refused_with_its_line() {
        let blank = load("\n[templates]\n\" \" = \"{pages}\"\n")
            .unwrap_err()
            .to_string();
        assert!(blank.contains("line 3: a template needs a name"), "{blank}");
        let number = load("[templates]\nx = 3\n").unwrap_err().to_string();
        assert!(number.contains("line 2"), "{number}");
    }
}
