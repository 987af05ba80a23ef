//! Prompts built from marked pages: a template's instruction, then the pages with the
//! numbers they were marked with. Local until the shared templates land.

use super::visitors::Mark;
use crate::api::DateParam;
use crate::text::{sanitize, thousands};

/// A named instruction for a job on some pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub name: String,
    pub text: String,
}

impl Template {
    /// The two built in: for AI readers, and for accuracy.
    #[must_use]
    pub fn builtin() -> Vec<Self> {
        vec![
            Self {
                name: "AI-readable".into(),
                text: "Make these pages easier for AI agents to read: clear headings, \
                       self-contained sections, code samples with their language, and nothing \
                       important only in images or tabs."
                    .into(),
            },
            Self {
                name: "accuracy".into(),
                text: "Review these pages for accuracy against the current product, and fix \
                       what is wrong or out of date."
                    .into(),
            },
        ]
    }

    /// The prompt for `marks`: the instruction, then one line per page with its numbers.
    /// With no page marked, the instruction alone.
    #[must_use]
    pub fn prompt(&self, marks: &[Mark]) -> String {
        let Some(first) = marks.first() else {
            return self.text.clone();
        };
        let dates = |m: &Mark| {
            format!(
                "{} to {}",
                DateParam::shown(m.from, "the start"),
                DateParam::shown(m.to, "now")
            )
        };
        let one_range = marks
            .iter()
            .all(|m| m.from == first.from && m.to == first.to);
        let mut text = format!("{}\n\nPages (unique visitors", self.text);
        if one_range {
            text.push_str(&format!(", {}, the end day excluded", dates(first)));
        }
        text.push_str("):");
        for mark in marks {
            let r = &mark.row;
            text.push_str(&format!(
                "\n- {}: {} human, {} AI, {} in all",
                sanitize(&r.path),
                thousands(r.human),
                thousands(r.ai),
                thousands(r.total)
            ));
            if !one_range {
                text.push_str(&format!(" ({})", dates(mark)));
            }
        }
        text
    }
}
