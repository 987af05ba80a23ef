//! Reading "did the change help?" for one job, the part both faces share: the job with
//! its change, the pages (its change's, then those its first prompt marks), the merge
//! time and the windows around it; then, once the face has fetched both windows (each
//! its own way with the analytics budget), what the views' span leaves out.

use chrono::{DateTime, TimeDelta, Utc};

use super::impact::{Sources, Windows, pages_of};
use super::impact_merge::{Merged, NotMerged, merged};
use crate::api::limit::ViewsSpan;
use crate::api::{ApiError, Client, Job};
use crate::text::sanitize;

/// A job ready to be measured: its pages, the merge and the windows.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub job: Job,
    pub pages: Vec<(String, Sources)>,
    pub merge: Merged,
    pub windows: Windows,
}

/// Why a job's impact cannot be read (yet).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotReady {
    /// The job could not be read.
    #[error("{0}")]
    Api(ApiError),
    /// No page to show: what the change and the prompt lacked.
    #[error("{0}")]
    NoPages(String),
    /// The merge time cannot be known: every source's reason.
    #[error("{0}")]
    NotMerged(NotMerged),
    /// Merged now or later than now: no window after it yet.
    #[error("{0}")]
    TooSoon(String),
}

/// Reads job `id` with its change and works out its pages, merge and windows; `marked`
/// are the pages its first prompt lists, `given` a merge time the person gave.
pub async fn prepare(
    client: &Client,
    id: &str,
    marked: &[String],
    given: Option<DateTime<Utc>>,
    window: TimeDelta,
    now: DateTime<Utc>,
) -> Result<Prepared, NotReady> {
    let job = client
        .get_job_with_change(id)
        .await
        .map_err(NotReady::Api)?;
    let changed = job
        .change
        .as_ref()
        .map(|change| change.pages())
        .unwrap_or_default();
    let pages = pages_of(&changed, marked);
    if pages.is_empty() {
        return Err(NotReady::NoPages(no_pages(&job, id)));
    }
    let merge = merged(&job, given).await.map_err(NotReady::NotMerged)?;
    let windows = Windows::around(merge.at, window, now).ok_or_else(|| {
        NotReady::TooSoon(format!(
            "job {}'s change was merged at {} UTC, {}: there is no window after the merge to compare yet",
            sanitize(id),
            merge.at.format("%Y-%m-%d %H:%M"),
            if merge.at > now { "later than now" } else { "just now" }
        ))
    })?;
    Ok(Prepared {
        job,
        pages,
        merge,
        windows,
    })
}

/// Why a job has no page to show, and what to do.
#[must_use]
pub fn no_pages(job: &Job, id: &str) -> String {
    let change = match &job.change {
        // The service says why there is no change (no branch: the agent never ran a
        // turn; nothing committed on it): "touched no file" read as if there were one.
        Some(change) if change.files.is_empty() => match &change.not_merged {
            Some(why) if change.merged_at.is_none() => {
                format!("it has no change ({})", sanitize(why))
            }
            _ => "its change touched no file".to_owned(),
        },
        Some(change) => format!(
            "none of the {} files its change touched is a page (.md or .mdx in the docs)",
            change.files.len()
        ),
        None => "the service does not say which files its change touched (only the local service with its real agent does)".to_owned(),
    };
    format!(
        "job {} has no page to show: {change}, and its first prompt lists no page as `- /path (human …)` lines (as a job made from marked pages does)",
        sanitize(id)
    )
}

/// What to say when the service's views (`Docdeck-Views-Span`) do not cover both
/// windows, in the CLI's words (its flags as the advice).
#[must_use]
pub fn partly_outside(windows: &Windows, span: ViewsSpan) -> Option<String> {
    gap_of(windows, span).map(|gap| gap.cli())
}

/// What the views' span leaves out of the windows: the facts, and the advice each face
/// words its own way (the console has no `--merged-at` or `--window` to give).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gap {
    /// What is missing, in words that hold for every face.
    pub facts: String,
    pub advice: GapAdvice,
}

/// What would make the windows hold data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GapAdvice {
    /// No view falls in either window: import the views around the merge, or measure
    /// a merge time inside the views.
    ImportOrMergeTime,
    /// Part of a window has no data; windows this long (both sides of the merge) fit.
    Fits(TimeDelta),
    /// Part of a window has no data, and no window worth naming fits.
    Nothing,
}

impl Gap {
    /// The facts with the CLI's advice (`--merged-at`, `--window`).
    #[must_use]
    pub fn cli(&self) -> String {
        let advice = match self.advice {
            GapAdvice::ImportOrMergeTime => {
                "; import the views of the weeks around the merge, or give --merged-at inside them"
                    .to_owned()
            }
            GapAdvice::Fits(fits) if fits >= TimeDelta::days(1) => {
                format!("; --window {}d fits the data", fits.num_days())
            }
            GapAdvice::Fits(fits) => format!("; --window {}h fits the data", fits.num_hours()),
            GapAdvice::Nothing => String::new(),
        };
        format!("{}{advice}", self.facts)
    }
}

/// The views' span against the windows: a window partly before the first view or after
/// the last reads as a fall or a rise that is only missing data.
#[must_use]
pub fn gap_of(windows: &Windows, span: ViewsSpan) -> Option<Gap> {
    let day = |at: DateTime<Utc>| at.format("%Y-%m-%d %H:%M").to_string();
    let (start, merge, end) = (windows.before.0, windows.before.1, windows.after.1);
    if span.last <= start || span.first >= end {
        return Some(Gap {
            facts: format!(
                "no view falls in either window: the views run from {} to {} UTC",
                day(span.first),
                day(span.last)
            ),
            advice: GapAdvice::ImportOrMergeTime,
        });
    }
    // A gap under a tenth of the window (at most a day: imports lag) is not worth a word:
    // a log that starts a few minutes after a window is as good as full.
    let slack = ((end - merge) / 10).min(TimeDelta::days(1));
    let mut gaps = Vec::new();
    if span.first - start > slack {
        gaps.push(format!(
            "the views begin at {} UTC, after the window before the merge begins ({} UTC)",
            day(span.first),
            day(start)
        ));
    }
    if end - span.last > slack {
        gaps.push(format!(
            "the views end at {} UTC, before the window after the merge ends ({} UTC)",
            day(span.last),
            day(end)
        ));
    }
    if gaps.is_empty() {
        return None;
    }
    // The longest window both sides of the merge hold, if there is one worth naming.
    let fits = (merge - span.first).min(span.last - merge);
    let advice = if fits >= TimeDelta::hours(1) {
        GapAdvice::Fits(fits)
    } else {
        GapAdvice::Nothing
    };
    Some(Gap {
        facts: format!(
            "{}: part of a window has no data, so its numbers are low for that reason alone",
            gaps.join("; and ")
        ),
        advice,
    })
}

/// `14 days`, `1 day`, `6 days 18 hours`, `36 hours` (a whole number of hours under
/// three days reads as hours), `2 hours 5 minutes`, `40 seconds`: the two largest units,
/// as a person says it.
#[must_use]
pub fn length_words(length: TimeDelta) -> String {
    let plural = |n: i64, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
    let seconds = length.num_seconds().max(0);
    let (days, hours, minutes) = (
        seconds / 86_400,
        seconds % 86_400 / 3_600,
        seconds % 3_600 / 60,
    );
    if seconds % 86_400 == 0 && days > 0 {
        plural(days, "day")
    } else if seconds % 3_600 == 0 && seconds < 3 * 86_400 {
        plural(seconds / 3_600, "hour")
    } else if days > 0 && hours > 0 {
        format!("{} {}", plural(days, "day"), plural(hours, "hour"))
    } else if days > 0 {
        // Minutes are past the two largest units: "5 days", not "5 days 0 hours".
        plural(days, "day")
    } else if hours > 0 && minutes > 0 {
        format!("{} {}", plural(hours, "hour"), plural(minutes, "minute"))
    } else if hours > 0 {
        plural(hours, "hour")
    } else if minutes > 0 {
        plural(minutes, "minute")
    } else {
        plural(seconds, "second")
    }
}

/// `has` after one of a unit (`1 day has passed`), `have` after more.
#[must_use]
pub fn has_or_have(words: &str) -> &'static str {
    if words.starts_with("1 ") && words.split_whitespace().count() == 2 {
        "has"
    } else {
        "have"
    }
}

/// A commit id cut to 12 characters; other text as it is.
#[must_use]
pub fn short(what: &str) -> String {
    if what.len() == 40 && what.chars().all(|c| c.is_ascii_hexdigit()) {
        format!("merge commit {}", &what[..12])
    } else {
        what.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::limit::ViewsSpan;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn windows_the_views_do_not_cover_are_said() {
        let merged = at("2026-11-12T12:00:00Z");
        let windows =
            Windows::around(merged, TimeDelta::days(14), at("2026-11-27T00:00:00Z")).unwrap();
        let span = |first: &str, last: &str| ViewsSpan {
            first: at(first),
            last: at(last),
        };
        let note = partly_outside(
            &windows,
            span("2026-11-05T00:00:00Z", "2026-11-18T23:00:00Z"),
        )
        .unwrap();
        assert!(
            note.contains("the views begin at 2026-11-05 00:00 UTC"),
            "{note}"
        );
        assert!(
            note.contains("the views end at 2026-11-18 23:00 UTC"),
            "{note}"
        );
        assert!(note.ends_with("; --window 6d fits the data"), "{note}");
        assert_eq!(
            partly_outside(
                &windows,
                span("2026-10-01T00:00:00Z", "2026-11-26T01:00:00Z")
            ),
            None
        );
        // Found in a trial: a few minutes missing at the start of 14 days is no gap; a
        // window wholly outside the views says so, with no "shorter window" to try.
        assert_eq!(
            partly_outside(
                &windows,
                span("2026-10-29T12:04:00Z", "2026-11-26T12:00:00Z")
            ),
            None
        );
        let none = partly_outside(
            &windows,
            span("2015-05-17T00:00:00Z", "2015-05-20T23:59:00Z"),
        )
        .unwrap();
        assert!(none.starts_with("no view falls in either window"), "{none}");
        // Minutes after the merge, views that end hours before are said too (the check
        // waited for a whole day).
        let minutes =
            Windows::around(merged, TimeDelta::days(14), at("2026-11-12T12:10:00Z")).unwrap();
        let short = partly_outside(
            &minutes,
            span("2026-11-01T00:00:00Z", "2026-11-12T06:00:00Z"),
        );
        assert!(
            short.is_some_and(|s| s.starts_with("no view falls")),
            "views end before both windows"
        );
    }

    /// Found in the new-user trial (#12): the archived demo job, whose agent never ran,
    /// read "its change touched no file (or has none yet)": it has no change at all.
    #[test]
    fn a_job_without_a_change_says_so_with_the_services_reason() {
        use crate::api::JobChange;
        let with = |change: JobChange| Job {
            change: Some(Box::new(change)),
            ..Job::default()
        };
        let none = no_pages(
            &with(JobChange {
                not_merged: Some("the job has no branch yet: its agent has not run a turn".into()),
                ..JobChange::default()
            }),
            "job_1",
        );
        assert!(
            none.contains(
                "it has no change (the job has no branch yet: its agent has not run a turn)"
            ),
            "{none}"
        );
        assert!(!none.contains("touched no file"), "{none}");
        let empty = no_pages(
            &with(JobChange {
                merged_at: Some(at("2026-11-12T12:00:00Z")),
                ..JobChange::default()
            }),
            "job_1",
        );
        assert!(empty.contains("its change touched no file,"), "{empty}");
    }

    /// The console words its own advice: the facts are kept apart from the CLI's flags.
    #[test]
    fn a_gap_keeps_its_facts_apart_from_the_clis_advice() {
        let merged = at("2026-11-12T12:00:00Z");
        let windows =
            Windows::around(merged, TimeDelta::days(14), at("2026-11-27T00:00:00Z")).unwrap();
        let gap = gap_of(
            &windows,
            ViewsSpan {
                first: at("2015-05-17T00:00:00Z"),
                last: at("2015-05-20T23:59:00Z"),
            },
        )
        .unwrap();
        assert_eq!(gap.advice, GapAdvice::ImportOrMergeTime);
        assert!(!gap.facts.contains("--"), "{}", gap.facts);
        assert!(gap.cli().ends_with("give --merged-at inside them"));
    }

    #[test]
    fn window_lengths_read_as_days_hours_or_minutes() {
        assert_eq!(length_words(TimeDelta::days(14)), "14 days");
        assert_eq!(length_words(TimeDelta::days(1)), "1 day");
        assert_eq!(length_words(TimeDelta::hours(36)), "36 hours");
        assert_eq!(length_words(TimeDelta::minutes(90)), "1 hour 30 minutes");
        // Found in a trial: a window cut to 40 s read "1 minute", and 6 days 18 hours
        // read "9728 minutes".
        assert_eq!(length_words(TimeDelta::seconds(40)), "40 seconds");
        assert_eq!(length_words(TimeDelta::minutes(9728)), "6 days 18 hours");
        // Found in the demo: a merge 5 days and 40 minutes ago read "5 days 0 hours".
        assert_eq!(
            length_words(TimeDelta::days(5) + TimeDelta::minutes(40)),
            "5 days"
        );
        assert_eq!(has_or_have("1 minute"), "has");
        assert_eq!(has_or_have("40 seconds"), "have");
        assert_eq!(has_or_have("1 day 2 hours"), "have");
    }
}
