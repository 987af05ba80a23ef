//! The cells of the visitors table: counts that are never cut, paths cut at their start,
//! and the bar with its header.

use ratatui::text::{Line, Span};

use super::super::{ViewContext, thousands};
use super::fitting;
use crate::api::PathVisitors;
use crate::text::sanitize;
use crate::tui::app::BarScale;

/// Whether counts that come together cannot all be true (each class is part of the
/// total, and the total is at most their sum): their share means nothing then.
pub(super) fn inconsistent(human: u64, ai: u64, total: u64) -> bool {
    human > total || ai > total || total > human.saturating_add(ai)
}

/// A count in at most 6 columns: whole below 100,000, else `123K`, `1.2M`, `18E`
/// (rounded down, so never more than the count).
#[must_use]
pub(crate) fn compact_count(n: u64) -> String {
    if n < 100_000 {
        return thousands(n);
    }
    let units: [(u64, &str); 6] = [
        (1_000_000_000_000_000_000, "E"),
        (1_000_000_000_000_000, "P"),
        (1_000_000_000_000, "T"),
        (1_000_000_000, "B"),
        (1_000_000, "M"),
        (1_000, "K"),
    ];
    for (size, unit) in units {
        if n >= size {
            let whole = n / size;
            return if whole < 10 {
                format!("{whole}.{}{unit}", (n % size) / (size / 10))
            } else {
                format!("{whole}{unit}")
            };
        }
    }
    thousands(n)
}

/// The widths of the three number columns, and whether they show compact counts.
pub(super) fn number_columns(rows: &[PathVisitors], room: usize) -> ([u16; 3], bool) {
    let widest = |compact: bool, get: fn(&PathVisitors) -> u64| {
        rows.iter()
            .map(|r| {
                let v = get(r);
                if compact {
                    compact_count(v)
                } else {
                    thousands(v)
                }
                .chars()
                .count()
            })
            .max()
            .unwrap_or(0)
            .max(5)
    };
    let columns = |compact: bool| {
        [
            widest(compact, |r| r.human),
            widest(compact, |r| r.ai),
            widest(compact, |r| r.total),
        ]
    };
    let whole = columns(false).map(|w| w.max(8));
    let (widths, compact) = if whole.iter().sum::<usize>() <= room {
        (whole, false)
    } else {
        (columns(true), true)
    };
    (
        widths.map(|w| u16::try_from(w).unwrap_or(u16::MAX)),
        compact,
    )
}

/// `…` and the end of a path cut to `width` columns by display width (a wide character
/// takes two): the end tells pages apart.
pub(super) fn path_cell(path: &str, width: usize) -> String {
    crate::text::keep_end(&crate::text::steady(&sanitize(path)), width)
}

/// Says what a full bar is, as much as fits above the bars.
pub(super) fn bar_header(scale: BarScale, width: u16) -> Line<'static> {
    let (whole, short) = (thousands(scale.value()), compact_count(scale.value()));
    let of = match scale {
        BarScale::TopRow(_) => "top page",
        BarScale::Total(_) => "all",
    };
    fitting(
        vec![
            Line::from(format!("█ human ░ AI · full = {whole} ({of})")),
            Line::from(format!("full bar = {whole} ({of})")),
            Line::from(format!("full = {whole} ({of})")),
            Line::from(format!("full bar = {whole}")),
            Line::from(format!("full = {whole}")),
            Line::from(format!("full = {short}")),
            Line::from(format!("={short}")),
        ],
        width,
    )
}

/// A stacked bar as long as the row's total on the range's scale, split between human
/// and AI visitors in proportion. Counts that cannot all be true get a mark instead.
pub(super) fn bar(row: &PathVisitors, scale: u64, width: u16, cx: &ViewContext) -> Line<'static> {
    if inconsistent(row.human, row.ai, row.total) {
        let why = if row.ai > row.total {
            "AI > total"
        } else if row.human > row.total {
            "human > total"
        } else {
            "total > human+AI"
        };
        let text = if width >= 30 {
            format!("? share n/a: {why}")
        } else {
            "? share n/a".to_owned()
        };
        return Line::from(Span::styled(text, cx.theme.warning()));
    }
    // In u128: counts come from the service, and any u64 times the width must not overflow.
    let cells = u128::from(width);
    let length = (u128::from(row.total) * cells)
        .div_ceil(u128::from(scale.max(1)))
        .min(cells);
    let both = u128::from(row.human) + u128::from(row.ai);
    let mut human_cells = (length * u128::from(row.human) + both / 2)
        .checked_div(both)
        .unwrap_or(0);
    // A class with visitors keeps at least one cell when the bar has two.
    if length >= 2 {
        if row.ai > 0 && human_cells == length {
            human_cells -= 1;
        }
        if row.human > 0 && human_cells == 0 {
            human_cells = 1;
        }
    }
    let n = |c: u128| usize::try_from(c).unwrap_or(0);
    Line::from(vec![
        Span::styled("█".repeat(n(human_cells)), cx.theme.human()),
        Span::styled("░".repeat(n(length - human_cells)), cx.theme.ai()),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_whole_or_compact_and_never_more_than_they_are() {
        assert_eq!(compact_count(99_999), "99,999");
        assert_eq!(compact_count(123_456), "123K");
        assert_eq!(compact_count(1_234_567), "1.2M");
        assert_eq!(compact_count(1_299_999), "1.2M");
        assert_eq!(compact_count(999_999_999), "999M");
        assert_eq!(compact_count(u64::MAX), "18E");
        assert!(compact_count(u64::MAX).len() <= 6);
    }
}
