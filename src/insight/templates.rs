//! Prompt templates for "from pages to a job": two built in, then those of
//! `config.toml` (`[templates]`, parsed in [`crate::config`]). A template's
//! [`PAGES_PLACEHOLDER`] becomes the marked pages, one a line with their numbers; the
//! user reads and edits the result in the composer before anything is sent.

use crate::api::PathVisitors;
use crate::config::{PAGES_PLACEHOLDER, Template};
use crate::text::thousands;

/// Names and texts of the built-in templates, offered first.
const BUILT_IN: [(&str, &str); 2] = [
    (
        "easier for AI agents",
        "Make these pages easier for AI agents to read: clear headings, one topic per \
section, complete code examples with their imports, and no content that only \
appears in images or tabs. Keep the meaning unchanged.\n\n{pages}\n",
    ),
    (
        "review for accuracy",
        "Review these pages for accuracy against the current product: outdated \
versions, renamed settings, broken links and examples that no longer run. Fix what \
is wrong and list what you could not check.\n\n{pages}\n",
    ),
];

/// The built-in templates, then `configured` (as `Settings::templates` holds them), in
/// the order the composer cycles through them.
#[must_use]
pub fn all(configured: &[Template]) -> Vec<Template> {
    BUILT_IN
        .iter()
        .map(|(name, text)| Template {
            name: (*name).to_owned(),
            text: (*text).to_owned(),
        })
        .chain(configured.iter().cloned())
        .collect()
}

/// The marked pages as a template lists them, one a line:
/// `- /guides/webhooks (human 1,204, AI 310, total 1,421)`. Paths are as the service
/// sent them (the composer shows text safely; the agent needs the real path).
#[must_use]
pub fn page_lines(pages: &[PathVisitors]) -> String {
    pages
        .iter()
        .map(|page| {
            format!(
                "- {} (human {}, AI {}, total {})",
                page.path,
                thousands(page.human),
                thousands(page.ai),
                thousands(page.total)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The pages marked for a job, with the range their numbers cover.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marked {
    pub pages: Vec<PathVisitors>,
    /// Such as `unique visitors from 2026-11-16 to 2026-11-23 (UTC, the end excluded)`;
    /// `None` when nothing says it.
    pub range: Option<String>,
}

/// `template`'s text with every [`PAGES_PLACEHOLDER`] replaced by [`page_lines`] of the
/// marked pages and the range their numbers cover (nothing when none is marked: the user
/// adds the pages in the composer).
#[must_use]
pub fn fill(template: &Template, marked: &Marked) -> String {
    let mut pages = page_lines(&marked.pages);
    if let Some(range) = marked.range.as_deref().filter(|_| !marked.pages.is_empty()) {
        pages.push_str(&format!("\n(numbers: {range})"));
    }
    template
        .text
        .replace(PAGES_PLACEHOLDER, &pages)
        .trim()
        .to_owned()
        + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_templates_are_built_in_and_configured_ones_follow() {
        let mine = Template {
            name: "translate".into(),
            text: "Translate {pages}".into(),
        };
        let all = all(std::slice::from_ref(&mine));
        assert_eq!(all.len(), 3);
        assert!(all[0].text.contains("easier for AI agents to read"));
        assert!(all[1].text.contains("accuracy"));
        assert_eq!(all[2], mine);
        assert!(all.iter().all(|t| t.text.contains(PAGES_PLACEHOLDER)));
    }

    #[test]
    fn the_placeholder_becomes_the_pages_with_their_numbers() {
        let template = &all(&[])[0];
        let text = fill(
            template,
            &Marked {
                pages: vec![
                    PathVisitors::new("/guides/webhooks", 1_204, 310, 1_421),
                    PathVisitors::new("/faq", 3, 0, 3),
                ],
                range: Some("unique visitors from 2026-11-16 to 2026-11-23".into()),
            },
        );
        assert!(text.starts_with("Make these pages easier"), "{text}");
        assert!(
            text.ends_with(
                "\n\n- /guides/webhooks (human 1,204, AI 310, total 1,421)\n- /faq (human 3, AI 0, total 3)\n(numbers: unique visitors from 2026-11-16 to 2026-11-23)\n"
            ),
            "{text}"
        );
        assert!(!text.contains(PAGES_PLACEHOLDER));
    }

    #[test]
    fn with_no_pages_marked_the_placeholder_is_left_empty() {
        let template = Template {
            name: "x".into(),
            text: "Check {pages} and {pages}".into(),
        };
        assert_eq!(fill(&template, &Marked::default()), "Check  and\n");
    }
}
