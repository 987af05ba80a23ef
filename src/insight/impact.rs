//! "Did the change help?" (issue 27), below both faces: the windows before and after a
//! merge, the pages a job touched (from its change, and marked in its first prompt), and
//! each page's human and AI visitors in both windows beside the whole site's, with the
//! caveat written once wherever the numbers are shown.

use chrono::{DateTime, TimeDelta, Utc};

use crate::api::{VisitorTotals, VisitorsPage};
use crate::insight::compare::counts;

/// Said once beside every impact: what the numbers cannot tell.
pub const CAVEAT: &str = "A rise or fall on the whole site in the same windows is not the change's effect: read each page beside the site. Short windows are noisy: a few visitors more or less is not a trend.";

/// The two windows compared: `[merge − length, merge)` and `[merge, merge + length)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Windows {
    pub before: (DateTime<Utc>, DateTime<Utc>),
    pub after: (DateTime<Utc>, DateTime<Utc>),
    /// The window asked for; the windows are shorter when less time has passed since the
    /// merge (both the same length, so that they compare).
    pub asked: TimeDelta,
}

impl Windows {
    /// The windows around `merged_at`, `asked` long each, or as long as has passed since
    /// the merge when that is less; `None` when nothing has passed yet.
    #[must_use]
    pub fn around(merged_at: DateTime<Utc>, asked: TimeDelta, now: DateTime<Utc>) -> Option<Self> {
        let passed = now - merged_at;
        let length = asked.min(passed);
        (length > TimeDelta::zero()).then(|| Self {
            before: (merged_at - length, merged_at),
            after: (merged_at, merged_at + length),
            asked,
        })
    }

    /// Each window's length.
    #[must_use]
    pub fn length(&self) -> TimeDelta {
        self.after.1 - self.after.0
    }

    /// Whether the windows are shorter than asked (the merge is recent).
    #[must_use]
    pub fn shortened(&self) -> bool {
        self.length() < self.asked
    }
}

/// The pages a job's first prompt lists as a template writes them
/// ([`super::templates::page_lines`]: `- /guides/webhooks (human 1,204, …)`): the pages
/// marked when the job was made. A line the user rewrote to another shape is not read.
#[must_use]
pub fn marked_pages(prompt: &str) -> Vec<String> {
    let mut pages: Vec<String> = Vec::new();
    for line in prompt.lines() {
        let Some(rest) = line.trim().strip_prefix("- /") else {
            continue;
        };
        let Some((path, numbers)) = rest.split_once(" (") else {
            continue;
        };
        if !numbers.starts_with("human ") || path.contains(char::is_whitespace) {
            continue;
        }
        let page = format!("/{path}");
        if !pages.contains(&page) {
            pages.push(page);
        }
    }
    pages
}

/// Where a page of the impact comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sources {
    /// A file of the job's change is this page.
    pub change: bool,
    /// The job's first prompt lists it (marked when the job was made).
    pub marked: bool,
}

impl Sources {
    /// `change`, `marked` or `change+marked`.
    #[must_use]
    pub fn words(self) -> &'static str {
        match (self.change, self.marked) {
            (true, true) => "change+marked",
            (true, false) => "change",
            (false, true) => "marked",
            (false, false) => "-",
        }
    }
}

/// The pages of a job: those of its change first, in its order, then those marked only.
#[must_use]
pub fn pages_of(changed: &[String], marked: &[String]) -> Vec<(String, Sources)> {
    let mut pages: Vec<(String, Sources)> = Vec::new();
    for (page, is_change) in changed
        .iter()
        .map(|page| (page, true))
        .chain(marked.iter().map(|page| (page, false)))
    {
        let key = same_page(page);
        let at = match pages.iter().position(|(p, _)| same_page(p) == key) {
            Some(at) => at,
            None => {
                pages.push((page.clone(), Sources::default()));
                pages.len() - 1
            }
        };
        let sources = &mut pages[at].1;
        if is_change {
            sources.change = true;
        } else {
            sources.marked = true;
        }
    }
    pages
}

/// A path as pages are compared: without a trailing `/` (the root stays `/`).
fn same_page(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() { "/" } else { trimmed }
}

/// One page's visitors before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageImpact {
    pub path: String,
    pub sources: Sources,
    pub before: VisitorTotals,
    pub after: VisitorTotals,
}

/// Every page's numbers, and the whole site's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Impact {
    pub pages: Vec<PageImpact>,
    pub site_before: VisitorTotals,
    pub site_after: VisitorTotals,
}

/// The impact of `pages`, read from the whole ranges before and after (a page with no
/// row in a window had no visitors there; its rows are summed when the service lists it
/// both with and without a trailing `/`).
#[must_use]
pub fn impact(pages: &[(String, Sources)], before: &VisitorsPage, after: &VisitorsPage) -> Impact {
    let of = |range: &VisitorsPage, path: &str| {
        let key = same_page(path);
        range
            .visitors
            .iter()
            .filter(|row| same_page(&row.path) == key)
            .map(counts)
            .fold(VisitorTotals::default(), |sum, row| VisitorTotals {
                human: sum.human + row.human,
                ai: sum.ai + row.ai,
                total: sum.total + row.total,
            })
    };
    Impact {
        pages: pages
            .iter()
            .map(|(path, sources)| PageImpact {
                path: path.clone(),
                sources: *sources,
                before: of(before, path),
                after: of(after, path),
            })
            .collect(),
        site_before: before.totals,
        site_after: after.totals,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::PathVisitors;
    use crate::insight::templates::page_lines;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn the_pages_a_template_lists_are_read_back_from_the_prompt() {
        let lines = page_lines(&[
            PathVisitors::new("/guides/webhooks", 1_204, 310, 1_421),
            PathVisitors::new("/", 3, 0, 3),
        ]);
        let prompt =
            format!("Make these pages easier.\n\n{lines}\n- /faq is wrong too\n(numbers: …)\n");
        assert_eq!(marked_pages(&prompt), ["/guides/webhooks", "/"]);
        assert!(marked_pages("Fix the typos in the quickstart").is_empty());
    }

    #[test]
    fn windows_are_as_long_as_asked_or_as_has_passed_since_the_merge() {
        let merged = at("2026-11-10T12:00:00Z");
        let days = TimeDelta::days(14);
        let full = Windows::around(merged, days, at("2026-11-27T00:00:00Z")).unwrap();
        assert_eq!(full.before, (at("2026-10-27T12:00:00Z"), merged));
        assert_eq!(full.after, (merged, at("2026-11-24T12:00:00Z")));
        assert!(!full.shortened());
        let short = Windows::around(merged, days, at("2026-11-13T12:00:00Z")).unwrap();
        assert_eq!(short.length(), TimeDelta::days(3));
        assert_eq!(short.before.0, at("2026-11-07T12:00:00Z"));
        assert!(short.shortened());
        assert_eq!(Windows::around(merged, days, merged), None);
    }

    #[test]
    fn pages_from_the_change_come_first_and_a_marked_one_is_joined_to_them() {
        let pages = pages_of(
            &["/guides/setup".into(), "/".into()],
            &["/faq".into(), "/guides/setup/".into()],
        );
        let words: Vec<(&str, &str)> = pages.iter().map(|(p, s)| (p.as_str(), s.words())).collect();
        assert_eq!(
            words,
            [
                ("/guides/setup", "change+marked"),
                ("/", "change"),
                ("/faq", "marked")
            ]
        );
    }

    #[test]
    fn a_page_without_a_row_had_no_visitors_and_the_site_is_the_totals() {
        let page = |rows: Vec<PathVisitors>, totals: (u64, u64, u64)| VisitorsPage {
            totals: VisitorTotals {
                human: totals.0,
                ai: totals.1,
                total: totals.2,
            },
            visitors: rows,
            has_more: false,
        };
        let before = page(vec![PathVisitors::new("/a", 2, 1, 3)], (10, 4, 13));
        let after = page(
            vec![
                PathVisitors::new("/a/", 1, 0, 1),
                PathVisitors::new("/a", 3, 1, 4),
            ],
            (12, 5, 16),
        );
        let pages = pages_of(&["/a".into(), "/b".into()], &[]);
        let found = impact(&pages, &before, &after);
        assert_eq!(
            found.pages[0].before,
            VisitorTotals {
                human: 2,
                ai: 1,
                total: 3
            }
        );
        assert_eq!(
            found.pages[0].after,
            VisitorTotals {
                human: 4,
                ai: 1,
                total: 5
            }
        );
        assert_eq!(found.pages[1].after, VisitorTotals::default());
        assert_eq!(found.site_after.total, 16);
    }
}
