//! Comparing a range with the period before it: the totals (absolute and relative change,
//! and the change in AI share), and each path's numbers beside its previous ones. A
//! relative change from nothing is not a number, and the types say so rather than
//! dividing by zero.

use std::collections::HashMap;

use crate::api::{PathVisitors, VisitorTotals};

/// A relative change: undefined when there was nothing before.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Percent {
    /// `(now − before) / before × 100`.
    Changed(f64),
    /// The previous number was 0: any change from it is not a percentage (show "new").
    NoPrevious,
}

/// A change in AI share, in percentage points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ShareChange {
    /// The share now minus the share before, such as `+4.5` points.
    Points(f64),
    /// The previous period had no visitors at all, so it had no share to change from.
    NoPrevious,
}

/// One number now and before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Delta {
    pub now: u64,
    pub before: u64,
}

impl Delta {
    /// `now − before`; negative when it fell.
    #[must_use]
    pub fn absolute(&self) -> i64 {
        let signed = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        signed(self.now).saturating_sub(signed(self.before))
    }

    /// The change relative to before.
    #[must_use]
    pub fn percent(&self) -> Percent {
        if self.before == 0 {
            return Percent::NoPrevious;
        }
        #[expect(clippy::cast_precision_loss)]
        let change = self.absolute() as f64 * 100.0 / self.before as f64;
        Percent::Changed(change)
    }
}

/// `+120`, `-40` or `±0`, with thousands separated.
#[must_use]
pub fn signed(by: i64) -> String {
    let size = crate::text::thousands(by.unsigned_abs());
    match by.signum() {
        1 => format!("+{size}"),
        -1 => format!("-{size}"),
        _ => "±0".to_owned(),
    }
}

/// A change in words, the same in the CLI and the console: `+120 (+5.1%)`, `+7 (new)` from
/// nothing, `-12 (gone)` to nothing, `±0` when there was nothing either time; without
/// `percent`, the number alone.
#[must_use]
pub fn change_text(delta: Delta, percent: bool) -> String {
    let by = signed(delta.absolute());
    if !percent {
        return by;
    }
    match delta.percent() {
        _ if delta.now == 0 && delta.before == 0 => by,
        Percent::NoPrevious => format!("{by} (new)"),
        Percent::Changed(_) if delta.now == 0 => format!("{by} (gone)"),
        Percent::Changed(_) if delta.now == delta.before => format!("{by} (0.0%)"),
        Percent::Changed(p) => format!("{by} ({p:+.1}%)"),
    }
}

/// An AI share in words: `18.2%`, or `n/a` where there were no visitors to have one.
#[must_use]
pub fn share_text(totals: VisitorTotals) -> String {
    if totals.total == 0 {
        "n/a".to_owned()
    } else {
        format!("{:.1}%", totals.ai_share())
    }
}

/// A range's totals in the words both faces use: `human 2,496  AI 525  total 2,877  AI
/// share 18.2%`.
#[must_use]
pub fn totals_text(totals: VisitorTotals) -> String {
    use crate::text::thousands;
    format!(
        "human {}  AI {}  total {}  AI share {}",
        thousands(totals.human),
        thousands(totals.ai),
        thousands(totals.total),
        share_text(totals)
    )
}

/// A change of AI share in the words both faces use: `AI share +4.5 pp`.
#[must_use]
pub fn share_change_text(change: ShareChange) -> String {
    match change {
        ShareChange::Points(points) => format!("AI share {points:+.1} pp"),
        ShareChange::NoPrevious => "AI share: no visitors before".to_owned(),
    }
}

/// The totals of a range beside those of the period before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TotalsComparison {
    pub human: Delta,
    pub ai: Delta,
    pub total: Delta,
}

impl TotalsComparison {
    #[must_use]
    pub fn new(now: VisitorTotals, before: VisitorTotals) -> Self {
        let delta = |now, before| Delta { now, before };
        Self {
            human: delta(now.human, before.human),
            ai: delta(now.ai, before.ai),
            total: delta(now.total, before.total),
        }
    }

    /// The change in AI share (AI of all unique visitors). A period now with no visitors
    /// has a share of 0; a previous period with none gives [`ShareChange::NoPrevious`].
    #[must_use]
    pub fn ai_share_change(&self) -> ShareChange {
        if self.total.before == 0 {
            return ShareChange::NoPrevious;
        }
        let share = |ai: u64, total: u64| {
            VisitorTotals {
                human: 0,
                ai,
                total,
            }
            .ai_share()
        };
        ShareChange::Points(
            share(self.ai.now, self.total.now) - share(self.ai.before, self.total.before),
        )
    }
}

/// One path of the range, with its numbers in the period before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComparedRow {
    pub path: String,
    pub now: VisitorTotals,
    /// `None`: the path had no visitors in the previous period (it is new).
    pub previous: Option<VisitorTotals>,
}

impl ComparedRow {
    /// Whether the path was absent from the previous period.
    #[must_use]
    pub fn is_new(&self) -> bool {
        self.previous.is_none()
    }

    /// Whether the path had visitors before and has none now.
    #[must_use]
    pub fn is_gone(&self) -> bool {
        self.now.total == 0 && self.previous.is_some_and(|before| before.total > 0)
    }

    /// The previous numbers, zeros for a new path (as the CLI's JSON and CSV give them).
    #[must_use]
    pub fn previous_or_zero(&self) -> VisitorTotals {
        self.previous.unwrap_or_default()
    }

    /// This row's totals now and before: the number the console and `--sort change`
    /// order by (a new path changed by all of its total).
    #[must_use]
    pub fn total_change(&self) -> Delta {
        Delta {
            now: self.now.total,
            before: self.previous_or_zero().total,
        }
    }

    /// The row's numbers now, as the service sent them.
    #[must_use]
    pub fn as_path_visitors(&self) -> PathVisitors {
        PathVisitors {
            path: self.path.clone(),
            human: self.now.human,
            ai: self.now.ai,
            total: self.now.total,
        }
    }
}

/// Each row of `now` (in its order) beside the row of the same path in `before`, then
/// the paths only `before` had (in its order), with zeros now: a page that lost all its
/// visitors is the biggest drop of all, not a page left out. Both lists must be whole
/// ranges: a path missing from a partial `before` would pass for new.
#[must_use]
pub fn compare_rows(now: &[PathVisitors], before: &[PathVisitors]) -> Vec<ComparedRow> {
    let previous: HashMap<&str, VisitorTotals> = before
        .iter()
        .map(|row| (row.path.as_str(), counts(row)))
        .collect();
    let current: std::collections::HashSet<&str> =
        now.iter().map(|row| row.path.as_str()).collect();
    let gone = before
        .iter()
        .filter(|row| !current.contains(row.path.as_str()))
        .map(|row| ComparedRow {
            path: row.path.clone(),
            now: VisitorTotals::default(),
            previous: Some(counts(row)),
        });
    now.iter()
        .map(|row| ComparedRow {
            path: row.path.clone(),
            now: counts(row),
            previous: previous.get(row.path.as_str()).copied(),
        })
        .chain(gone)
        .collect()
}

/// A row's three numbers in the shape of totals.
#[must_use]
pub fn counts(row: &PathVisitors) -> VisitorTotals {
    VisitorTotals {
        human: row.human,
        ai: row.ai,
        total: row.total,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn totals(human: u64, ai: u64, total: u64) -> VisitorTotals {
        VisitorTotals { human, ai, total }
    }

    #[test]
    fn totals_change_absolutely_relatively_and_in_share_points() {
        let comparison = TotalsComparison::new(totals(90, 30, 110), totals(100, 10, 100));
        assert_eq!(comparison.human.absolute(), -10);
        assert_eq!(comparison.human.percent(), Percent::Changed(-10.0));
        assert_eq!(comparison.ai.absolute(), 20);
        assert_eq!(comparison.ai.percent(), Percent::Changed(200.0));
        assert_eq!(comparison.total.percent(), Percent::Changed(10.0));
        // 30/110 = 27.27% against 10/100 = 10%.
        let ShareChange::Points(points) = comparison.ai_share_change() else {
            panic!("a share before")
        };
        assert!((points - 17.2727).abs() < 0.001, "{points}");
    }

    #[test]
    fn a_change_from_zero_has_no_percentage_and_no_share_change() {
        let comparison = TotalsComparison::new(totals(5, 2, 6), totals(0, 0, 0));
        assert_eq!(comparison.human.absolute(), 5);
        assert_eq!(comparison.human.percent(), Percent::NoPrevious);
        assert_eq!(comparison.ai_share_change(), ShareChange::NoPrevious);
        // From something to nothing is a fall of 100%, and the share falls to 0.
        let gone = TotalsComparison::new(totals(0, 0, 0), totals(4, 1, 4));
        assert_eq!(gone.total.percent(), Percent::Changed(-100.0));
        assert_eq!(gone.ai_share_change(), ShareChange::Points(-25.0));
        // Nothing before nor now: no percentage, not a division by zero.
        assert_eq!(Delta::default().percent(), Percent::NoPrevious);
        assert_eq!(Delta::default().absolute(), 0);
    }

    #[test]
    fn rows_keep_their_order_and_a_path_absent_before_is_new() {
        let now = [
            PathVisitors::new("/b", 3, 1, 4),
            PathVisitors::new("/new", 2, 0, 2),
            PathVisitors::new("/a", 1, 1, 1),
        ];
        let before = [
            PathVisitors::new("/a", 5, 0, 5),
            PathVisitors::new("/gone", 9, 9, 9),
            PathVisitors::new("/b", 1, 1, 2),
        ];
        let rows = compare_rows(&now, &before);
        let paths: Vec<&str> = rows.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(paths, ["/b", "/new", "/a", "/gone"]);
        assert!(rows[3].is_gone() && !rows[0].is_gone());
        assert_eq!(rows[3].now, VisitorTotals::default());
        assert_eq!(change_text(rows[3].total_change(), true), "-9 (gone)");
        assert_eq!(rows[0].previous, Some(totals(1, 1, 2)));
        assert_eq!(rows[0].total_change().absolute(), 2);
        assert!(rows[1].is_new());
        assert_eq!(rows[1].previous_or_zero(), VisitorTotals::default());
        assert_eq!(rows[1].total_change().percent(), Percent::NoPrevious);
        assert_eq!(rows[2].total_change().absolute(), -4);
        assert_eq!(rows[2].as_path_visitors(), now[2]);
    }

    #[test]
    fn changes_and_shares_read_the_same_everywhere() {
        let d = |now, before| Delta { now, before };
        assert_eq!(change_text(d(0, 0), true), "±0");
        assert_eq!(change_text(d(7, 0), true), "+7 (new)");
        assert_eq!(change_text(d(0, 12), true), "-12 (gone)");
        assert_eq!(change_text(d(1_050, 1_000), true), "+50 (+5.0%)");
        assert_eq!(change_text(d(4, 4), true), "±0 (0.0%)");
        assert_eq!(change_text(d(0, 12), false), "-12");
        assert_eq!(share_text(totals(0, 0, 0)), "n/a");
        assert_eq!(share_text(totals(3, 1, 4)), "25.0%");
    }
}
