//! The feedback columns of the visitors table: 👍, 👎 and 👎 per 1,000 human visitors
//! (`UP`, `DOWN`, `DOWN/1k` under `NO_COLOR` and in ASCII). They give way at narrow
//! widths before the path does: 👍 first, then the rate, 👎 last.

use ratatui::layout::Constraint;
use ratatui::text::{Line, Span};

use super::super::table::{Column, sorted_header};
use super::super::{ViewContext, thousands};
use super::cells::compact_count;
use crate::api::VisitorsQuery;
use crate::listing::Direction;
use crate::text::sanitize;
use crate::tui::app::{FEEDBACK_PAGES, Thumbs, VisitorsColumn, VisitorsTable};

/// Which feedback columns fit, and how wide each is (`None`: it gave way).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ThumbColumns {
    up: Option<u16>,
    down: Option<u16>,
    rate: Option<u16>,
    words: bool,
}

/// One row's feedback, as the columns need it: its thumbs (`None`: not known) and its
/// human visitors.
pub(super) type Feedback = (Option<Thumbs>, u64);

fn headers(words: bool) -> [&'static str; 3] {
    if words {
        ["UP", "DOWN", "DOWN/1k"]
    } else {
        ["👍", "👎", "👎/1k"]
    }
}

/// A count of thumbs, or `?` when the page's feedback is not known.
fn count_text(thumbs: Option<Thumbs>, get: fn(Thumbs) -> u64) -> String {
    thumbs.map_or_else(|| "?".to_owned(), |t| compact_count(get(t)))
}

/// 👎 per 1,000 human visitors: one decimal below 100, `-` for a page without human
/// visitors, `?` when its feedback is not known.
pub(super) fn rate_text((thumbs, human): Feedback) -> String {
    let Some(thumbs) = thumbs else {
        return "?".to_owned();
    };
    match thumbs.down_per_thousand(human) {
        None => "-".to_owned(),
        Some(0.0) => "0".to_owned(),
        Some(rate) if rate < 100.0 => format!("{rate:.1}"),
        #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Some(rate) => thousands(rate.round() as u64),
    }
}

impl ThumbColumns {
    /// The columns that fit in `room` cells (each takes its width and one space), for
    /// `rows`; sorted headers take one more cell for the arrow.
    pub(super) fn fit(
        rows: impl Iterator<Item = Feedback>,
        room: usize,
        arrows: bool,
        cx: &ViewContext,
    ) -> Self {
        let words = cx.theme.words();
        let [up_h, down_h, rate_h] =
            headers(words).map(|h| crate::text::width(h) + usize::from(arrows));
        let (mut up, mut down, mut rate) = (up_h, down_h, rate_h);
        for row in rows {
            up = up.max(count_text(row.0, |t| t.up).chars().count());
            down = down.max(count_text(row.0, |t| t.down).chars().count());
            rate = rate.max(rate_text(row).chars().count());
        }
        let mut left = room;
        let mut take = |width: usize| {
            let fits = width < left;
            if fits {
                left -= width + 1;
            }
            fits.then(|| u16::try_from(width).unwrap_or(u16::MAX))
        };
        // By what matters most: the thumbs down, their rate, the thumbs up.
        let down = take(down);
        let rate = down.and(take(rate));
        let up = rate.and(take(up));
        Self {
            up,
            down,
            rate,
            words,
        }
    }

    /// The cells the columns take, with the space before each.
    pub(super) fn used(&self) -> u16 {
        [self.up, self.down, self.rate]
            .into_iter()
            .flatten()
            .map(|w| w + 1)
            .sum()
    }

    /// The columns' headers, with the arrow of the sort when `sorted` says so.
    pub(super) fn columns(
        &self,
        sorted: impl Fn(VisitorsColumn) -> Option<Direction>,
    ) -> Vec<Column<'static>> {
        let [up_h, down_h, rate_h] = headers(self.words);
        [
            (self.up, up_h, VisitorsColumn::ThumbsUp),
            (self.down, down_h, VisitorsColumn::ThumbsDown),
            (self.rate, rate_h, VisitorsColumn::DownPerThousand),
        ]
        .into_iter()
        .filter_map(|(width, header, column)| {
            let width = width?;
            Some(
                Column::new(
                    sorted_header(header, sorted(column)),
                    Constraint::Length(width),
                )
                .right(),
            )
        })
        .collect()
    }

    /// One row's cells of the columns shown.
    pub(super) fn cells(&self, row: Feedback) -> Vec<Line<'static>> {
        let (thumbs, _) = row;
        let mut cells = Vec::new();
        if self.up.is_some() {
            cells.push(Line::from(count_text(thumbs, |t| t.up)));
        }
        if self.down.is_some() {
            cells.push(Line::from(count_text(thumbs, |t| t.down)));
        }
        if self.rate.is_some() {
            cells.push(Line::from(rate_text(row)));
        }
        cells
    }
}

/// What keeps the feedback columns from being whole: a read that failed, or a list
/// that names only the pages one request holds.
pub(super) fn footer_span(
    table: &VisitorsTable,
    query: &VisitorsQuery,
    cx: &ViewContext,
) -> Option<Span<'static>> {
    if let Some(error) = table.feedback.error() {
        return Some(Span::styled(
            format!(" · feedback: {}", sanitize(error)),
            cx.theme.error(),
        ));
    }
    let partial = table.feedback.of_range(query)?.partial;
    partial.then(|| {
        Span::styled(
            format!(
                " · feedback of the top {} pages only (?: not known)",
                FEEDBACK_PAGES
            ),
            cx.theme.warning(),
        )
    })
}

/// The range of the page on screen (the feedback joined to it must be of the same).
pub(super) fn shown_query(table: &VisitorsTable) -> VisitorsQuery {
    table
        .load()
        .shown()
        .map(|shown| shown.query.clone())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_is_per_thousand_humans_and_says_when_it_has_none() {
        let thumbs = Some(Thumbs { up: 6, down: 14 });
        assert_eq!(rate_text((thumbs, 300)), "46.7");
        assert_eq!(rate_text((thumbs, 0)), "-");
        assert_eq!(rate_text((Some(Thumbs { up: 1, down: 0 }), 50)), "0");
        assert_eq!(rate_text((thumbs, 10)), "1,400");
        assert_eq!(rate_text((None, 300)), "?");
    }
}
