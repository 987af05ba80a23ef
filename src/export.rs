//! Results written as data, for a file or a script: the formats and the writing of
//! visitors as CSV or JSON. Below both the CLI (which adds a table for people) and the
//! console (whose export writes a file), so neither imports the other.

use serde::Serialize;

use crate::api::{VisitorTotals, VisitorsPage};
use crate::insight::ComparedRow;

/// A format for data: what a file or a pipe gets. A table is for people, so it is not
/// one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataFormat {
    Json,
    Csv,
}

impl DataFormat {
    /// The file name ending a file of this format usually has.
    #[must_use]
    pub fn extension(self) -> &'static str {
        match self {
            Self::Json => ".json",
            Self::Csv => ".csv",
        }
    }
}

/// Why data could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("cannot write CSV: {0}")]
    Csv(#[from] csv::Error),
    #[error("cannot write CSV: {0}")]
    CsvBuffer(String),
    #[error("cannot encode JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// The visitors' CSV: a header, then `path,human,ai,total` per row, in the page's order.
pub fn visitors_csv(page: &VisitorsPage) -> Result<String, WriteError> {
    let rows = page.visitors.iter().map(|row| {
        [
            row.path.clone(),
            row.human.to_string(),
            row.ai.to_string(),
            row.total.to_string(),
        ]
    });
    csv_text(Some(&["path", "human", "ai", "total"]), rows)
}

/// CSV of `rows` under an optional header.
pub fn csv_text<R, F>(
    header: Option<&[&str]>,
    rows: impl IntoIterator<Item = R>,
) -> Result<String, WriteError>
where
    R: IntoIterator<Item = F>,
    F: AsRef<[u8]>,
{
    let mut writer = csv::Writer::from_writer(Vec::new());
    if let Some(header) = header {
        writer.write_record(header)?;
    }
    for row in rows {
        writer.write_record(row)?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|err| WriteError::CsvBuffer(err.to_string()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// JSON of any result, indented or on one line.
pub fn json_text(value: &impl serde::Serialize, pretty: bool) -> Result<String, WriteError> {
    Ok(if pretty {
        serde_json::to_string_pretty(value)?
    } else {
        serde_json::to_string(value)?
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{PathVisitors, VisitorTotals};

    #[test]
    fn visitors_csv_quotes_what_needs_it_and_keeps_the_order() {
        let page = VisitorsPage {
            visitors: vec![
                PathVisitors {
                    path: "/a,b".into(),
                    human: 3,
                    ai: 1,
                    total: 4,
                },
                PathVisitors {
                    path: "/c".into(),
                    human: 0,
                    ai: 2,
                    total: 2,
                },
            ],
            totals: VisitorTotals {
                human: 3,
                ai: 3,
                total: 6,
            },
            has_more: false,
        };
        assert_eq!(
            visitors_csv(&page).unwrap(),
            "path,human,ai,total\n\"/a,b\",3,1,4\n/c,0,2,2\n"
        );
    }
}

/// A whole range as it is read: its totals, the rows kept in the order shown, how many
/// a filter matched, and with a comparison the period before (`from`, `to`, totals).
pub struct Whole<'a> {
    pub totals: VisitorTotals,
    pub rows: Vec<&'a ComparedRow>,
    pub matched: Option<usize>,
    pub previous: Option<(String, String, VisitorTotals)>,
    /// With the range's feedback: each row's 👍 and 👎 (`None`: the page is not among
    /// those a partial list named), in the order of `rows`.
    pub feedback: Option<Vec<Option<(u64, u64)>>>,
}

/// 👎 per 1,000 human visitors, to one decimal; `None` without human visitors.
#[must_use]
pub fn down_per_thousand(down: u64, human: u64) -> Option<f64> {
    #[expect(clippy::cast_precision_loss)]
    (human > 0).then(|| (down as f64 * 10_000.0 / human as f64).round() / 10.0)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WholeJson<'a> {
    totals: VisitorTotals,
    visitors: Vec<RowJson<'a>>,
    has_more: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    matched: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    previous: Option<PreviousJson<'a>>,
}

#[derive(Serialize)]
struct RowJson<'a> {
    path: &'a str,
    human: u64,
    ai: u64,
    total: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    previous: Option<VisitorTotals>,
    /// With the feedback: `{thumbsUp, thumbsDown, thumbsDownPer1k}`, null when not known.
    #[serde(skip_serializing_if = "Option::is_none")]
    feedback: Option<Option<FeedbackJson>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FeedbackJson {
    thumbs_up: u64,
    thumbs_down: u64,
    thumbs_down_per1k: Option<f64>,
}

#[derive(Serialize)]
struct PreviousJson<'a> {
    from: &'a str,
    to: &'a str,
    totals: VisitorTotals,
}

/// A whole range as the contract's JSON: `previous` beside the totals and each row when
/// compared, `matched` when filtered.
pub fn whole_json(whole: &Whole<'_>, pretty: bool) -> Result<String, WriteError> {
    let compared = whole.previous.is_some();
    let json = WholeJson {
        totals: whole.totals,
        visitors: whole
            .rows
            .iter()
            .enumerate()
            .map(|(at, row)| RowJson {
                path: &row.path,
                human: row.now.human,
                ai: row.now.ai,
                total: row.now.total,
                previous: compared.then(|| row.previous_or_zero()),
                feedback: whole.feedback.as_ref().map(|thumbs| {
                    thumbs
                        .get(at)
                        .copied()
                        .flatten()
                        .map(|(up, down)| FeedbackJson {
                            thumbs_up: up,
                            thumbs_down: down,
                            thumbs_down_per1k: down_per_thousand(down, row.now.human),
                        })
                }),
            })
            .collect(),
        has_more: false,
        matched: whole.matched,
        previous: whole
            .previous
            .as_ref()
            .map(|(from, to, totals)| PreviousJson {
                from,
                to,
                totals: *totals,
            }),
    };
    json_text(&json, pretty)
}

/// A whole range as CSV: `path,human,ai,total`, the period before's three columns when
/// compared, and `thumbs_up,thumbs_down,thumbs_down_per_1k` with the feedback (empty
/// where not known; the rate empty for a page without human visitors).
pub fn whole_csv(whole: &Whole<'_>) -> Result<String, WriteError> {
    let compared = whole.previous.is_some();
    let mut header = vec!["path", "human", "ai", "total"];
    if compared {
        header.extend(["previous_human", "previous_ai", "previous_total"]);
    }
    if whole.feedback.is_some() {
        header.extend(["thumbs_up", "thumbs_down", "thumbs_down_per_1k"]);
    }
    let rows = whole.rows.iter().enumerate().map(|(at, row)| {
        let mut cells = vec![row.path.clone()];
        let mut counts = vec![row.now];
        if compared {
            counts.push(row.previous_or_zero());
        }
        for c in counts {
            cells.extend([c.human, c.ai, c.total].map(|n| n.to_string()));
        }
        if let Some(thumbs) = &whole.feedback {
            match thumbs.get(at).copied().flatten() {
                Some((up, down)) => cells.extend([
                    up.to_string(),
                    down.to_string(),
                    down_per_thousand(down, row.now.human)
                        .map_or_else(String::new, |r| format!("{r:.1}")),
                ]),
                None => cells.extend([String::new(), String::new(), String::new()]),
            }
        }
        cells
    });
    csv_text(Some(&header), rows)
}
