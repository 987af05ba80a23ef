//! The job detail's "Did the change help?": what `i` read (the pages the change touched,
//! their human and AI visitors in the window before the merge against the window after,
//! beside the whole site, the caveat once), or why it could not be known, in the words
//! `docdeck jobs impact` uses.

use chrono::TimeDelta;
use ratatui::text::{Line, Span};

use super::ViewContext;
use crate::api::{JobStatus, VisitorTotals};
use crate::insight::compare::{Delta, change_text};
use crate::insight::impact::CAVEAT;
use crate::insight::impact_read::{Gap, GapAdvice, NotReady, has_or_have, length_words, short};
use crate::text::{sanitize, thousands};
use crate::tui::app::{App, IMPACT_WINDOWS, ImpactLoad};
use crate::tui::keymap::{Action, KeyContext};
use crate::tui::message::{ImpactFailed, ImpactRead};

/// The section's lines, each with the indent its wrapped rows keep: for a job that has
/// ended with a change to merge (completed, or archived since, with a link to its
/// change), or whose impact was asked for; none for the others, whose detail keeps its
/// rows (`i` works on any job, and says why there is nothing to show).
pub(super) fn lines(id: &str, app: &App, cx: &ViewContext) -> Vec<(Line<'static>, usize)> {
    let theme = cx.theme;
    let row = app.jobs.get(id);
    let ended = row
        .and_then(|row| row.status())
        .is_some_and(|status| matches!(status, JobStatus::Completed | JobStatus::Archived));
    let changed = row.is_some_and(|row| row.pr_link().is_some());
    if !(ended && changed) && app.jobs.impacts.of(id).is_none() {
        return Vec::new();
    }
    let key = app.keymap().key_or_name(KeyContext::Detail, Action::Impact);
    let days = app.jobs.impacts.window_days();
    let window_key = app.keymap().key(KeyContext::Detail, Action::ImpactWindow);
    let window = (window_key.as_ref()).map_or_else(String::new, |w| format!("; {w} changes it"));
    let mut out = vec![
        (Line::default(), 0),
        (
            Line::from(Span::styled("Did the change help?", theme.bold())),
            0,
        ),
    ];
    // A reason's wrapped rows stay under it.
    let text = |words: String| {
        let own = words.chars().take_while(|c| *c == ' ').count();
        (Line::from(format!("  {words}")), 2 + own)
    };
    match app.jobs.impacts.of(id) {
        None => out.push((
            Line::from(Span::styled(
                format!(
                    "  {key} reads its pages' visitors {days} days before and after the merge (2+ analytics requests{window})"
                ),
                theme.dim(),
            )),
            2,
        )),
        Some(ImpactLoad::Reading) => {
            out.push((Line::from(Span::styled("  reading…", theme.warning())), 2))
        }
        Some(ImpactLoad::Refused(why)) => out.push((
            Line::from(Span::styled(
                format!("  not read: {}", sanitize(why)),
                theme.warning(),
            )),
            2,
        )),
        Some(ImpactLoad::Failed(failed)) => {
            out.extend(failed_lines(failed, id, &key).into_iter().map(text));
        }
        Some(ImpactLoad::Read(read)) => read_lines(&mut out, read, (id, &key, window_key.as_deref()), cx),
    }
    out
}

/// Why the impact is not shown, and what to do.
fn failed_lines(failed: &ImpactFailed, id: &str, key: &str) -> Vec<String> {
    let id = sanitize(id);
    match failed {
        ImpactFailed::NotReady(NotReady::NotMerged(not)) => {
            let mut lines = vec!["cannot tell when the change was merged:".to_owned()];
            lines.extend(not.reasons.iter().map(|why| format!("  {why}")));
            lines.push(format!(
                "Not merged yet: {key} reads it again once it is. Merged by a fast-forward or squash (no merge time kept): `docdeck jobs impact {id} --merged-at TIME` reads it."
            ));
            lines
        }
        ImpactFailed::NotReady(NotReady::Api(err)) => {
            vec![format!(
                "the job could not be read: {}; {key} tries again",
                sanitize(&err.to_string())
            )]
        }
        ImpactFailed::NotReady(too_soon @ NotReady::TooSoon(_)) => vec![format!(
            "{}; {key} reads it again later",
            sanitize(&too_soon.to_string())
        )],
        ImpactFailed::NotReady(other) => vec![sanitize(&other.to_string())],
        ImpactFailed::Visitors(err) => vec![format!(
            "the windows' visitors could not be read: {}; {key} tries again",
            sanitize(&err.to_string())
        )],
        ImpactFailed::NeedsMore(allowed) => vec![format!(
            "the two windows hold more rows than {allowed} analytics requests read (250 each): {key} asks to read them all"
        )],
        ImpactFailed::TooMany(rows) => vec![format!(
            "a window has more than {} rows, the most held here: `docdeck jobs impact {id} --max-rows N` reads more",
            thousands(*rows as u64)
        )],
    }
}

/// A merge or window time: to the minute, or to the second when the windows are under
/// an hour long (right after a merge, minutes made the start and end of a window equal).
fn when(at: chrono::DateTime<chrono::Utc>, length: chrono::TimeDelta) -> String {
    if length < chrono::TimeDelta::hours(1) {
        at.format("%Y-%m-%d %H:%M:%S").to_string()
    } else {
        at.format("%Y-%m-%d %H:%M").to_string()
    }
}

/// What the console can do about a window the views do not cover: it has no
/// `--merged-at` or `--window` to give, so `w` where its windows fit, else the CLI.
fn gap_words(gap: &Gap, id: &str, window_key: Option<&str>) -> String {
    let id = sanitize(id);
    let advice = match gap.advice {
        GapAdvice::ImportOrMergeTime => format!(
            "; import the views of the weeks around the merge, or from the CLI: `docdeck jobs impact {id} --merged-at TIME` with a time inside them"
        ),
        GapAdvice::Fits(fits) => {
            let days = IMPACT_WINDOWS
                .iter()
                .rev()
                .find(|d| TimeDelta::days(**d) <= fits);
            match (days, window_key) {
                (Some(days), Some(w)) => {
                    format!("; windows of {days} days fit the data ({w} picks them)")
                }
                _ => {
                    let length = if fits >= TimeDelta::days(1) {
                        format!("{}d", fits.num_days())
                    } else {
                        format!("{}h", fits.num_hours())
                    };
                    format!(
                        "; shorter windows fit the data, from the CLI: `docdeck jobs impact {id} --window {length}`"
                    )
                }
            }
        }
        GapAdvice::Nothing => String::new(),
    };
    format!("{}{advice}", sanitize(&gap.facts))
}

/// `human 2 → 3 +1 (+50.0%) · AI 1 → 2 +1 (+100.0%)`.
fn pair(before: VisitorTotals, after: VisitorTotals) -> String {
    let one = |name: &str, b: u64, a: u64| {
        format!(
            "{name} {} → {} {}",
            thousands(b),
            thousands(a),
            change_text(Delta { now: a, before: b }, true)
        )
    };
    format!(
        "{} · {}",
        one("human", before.human, after.human),
        one("AI", before.ai, after.ai)
    )
}

fn read_lines(
    out: &mut Vec<(Line<'static>, usize)>,
    read: &ImpactRead,
    (id, key, window_key): (&str, &str, Option<&str>),
    cx: &ViewContext,
) {
    let theme = cx.theme;
    let merge = &read.merge;
    let w = &read.windows;
    let when = |at| when(at, w.length());
    let how = match (merge.by, &merge.what) {
        ("given", _) => "as given".to_owned(),
        (by, Some(what)) => format!("{by}: {}", sanitize(&short(what))),
        (by, None) => by.to_owned(),
    };
    out.push((
        Line::from(format!("  merged {} UTC ({how})", when(merge.at))),
        2,
    ));
    let length = length_words(w.length());
    let mut windows = format!(
        "  unique visitors, the {length} before the merge ({} to {} UTC) → the {length} after (to {} UTC)",
        when(w.before.0),
        when(w.before.1),
        when(w.after.1)
    );
    if w.shortened() {
        windows.push_str(&format!(
            "; only {length} {} passed since the merge, not the {} asked",
            has_or_have(&length),
            length_words(w.asked)
        ));
    }
    out.push((Line::from(Span::styled(windows, theme.dim())), 2));
    // Minutes after a merge, a few visitors either way say nothing yet.
    if w.length() < TimeDelta::hours(1) {
        out.push((
            Line::from(Span::styled(
                format!(
                    "  merged {length} ago: too soon to compare; {key} again later reads longer windows"
                ),
                theme.warning(),
            )),
            2,
        ));
    }
    for page in &read.impact.pages {
        out.push((
            Line::from(vec![
                Span::styled(format!("  {}", sanitize(&page.path)), theme.accent()),
                Span::styled(format!("  {}", page.sources.words()), theme.dim()),
            ]),
            4,
        ));
        out.push((
            Line::from(format!("      {}", pair(page.before, page.after))),
            6,
        ));
    }
    out.push((Line::from(Span::styled("  (whole site)", theme.bold())), 4));
    out.push((
        Line::from(format!(
            "      {}",
            pair(read.impact.site_before, read.impact.site_after)
        )),
        6,
    ));
    if let Some(gap) = &read.gap {
        out.push((
            Line::from(Span::styled(
                format!("  ⚠ {}", gap_words(gap, id, window_key)),
                theme.warning(),
            )),
            4,
        ));
    }
    out.push((
        Line::from(Span::styled(format!("  {CAVEAT}"), theme.dim())),
        2,
    ));
}
