//! Exports from the visitors pane: started from the form (kept aside in case the file
//! exists, to ask before replacing it), and how each ended (the view words it).

use super::{Ctx, ExportProgress, VisitorsTable};
use crate::tui::app::outcome::Outcome;
use crate::tui::app::{ExportForm, NoticeKind, Overlay, Said};
use crate::tui::message::{Effect, ExportEnd, Io};

impl VisitorsTable {
    /// Starts an export from its form, kept aside in case the file exists.
    pub(in crate::tui::app) fn start_export(
        &mut self,
        form: Box<ExportForm>,
        effects: &mut Vec<Effect>,
    ) {
        let (path, overwrite) = form.target();
        self.export = Some(ExportProgress {
            path: path.clone(),
            rows: 0,
            pages: 0,
        });
        self.export_end = None;
        // The whole range read is written as it is shown (filter, order, comparison),
        // without asking the service again; otherwise every page is fetched.
        match self.whole_text(form.format) {
            Some((text, rows)) => effects.push(Effect::Io(Io::ExportWhole {
                text,
                rows,
                path,
                overwrite,
            })),
            None => effects.push(Effect::Io(Io::Export {
                query: form.query().clone(),
                format: form.format,
                path,
                overwrite,
            })),
        }
        self.export_form = Some(form);
    }

    /// The whole range read, as `format`, and its rows: `None` when no range is read (or
    /// it cannot be written).
    fn whole_text(&self, format: crate::export::DataFormat) -> Option<(String, u64)> {
        let whole = self.whole.table()?;
        let whole_rows: Vec<_> = whole
            .arrangement
            .order()
            .iter()
            .filter_map(|&i| whole.rows.get(i))
            .collect();
        let rows: Vec<_> = whole_rows.iter().map(|row| &row.visitors).collect();
        // The feedback columns go with the rows when the range's feedback is joined.
        let feedback = whole.feedback.then(|| {
            whole_rows
                .iter()
                .map(|row| row.thumbs.map(|t| (t.up, t.down)))
                .collect()
        });
        let filtered = !whole.arrangement.filter().as_typed().is_empty();
        let previous = match (&self.previous, whole.compared) {
            (super::PreviousLoad::Shown { query, totals }, true) => Some((
                crate::api::DateParam::shown(query.date_from, "the start"),
                crate::api::DateParam::shown(query.date_to, "now"),
                *totals,
            )),
            _ => None,
        };
        let count = rows.len() as u64;
        let whole = crate::export::Whole {
            totals: whole.totals,
            matched: filtered.then_some(rows.len()),
            rows,
            previous,
            feedback,
        };
        let text = match format {
            crate::export::DataFormat::Json => {
                crate::export::whole_json(&whole, false).ok()? + "\n"
            }
            crate::export::DataFormat::Csv => crate::export::whole_csv(&whole).ok()?,
        };
        Some((text, count))
    }

    /// An export ended: said in the notice line and under the table; a file that exists
    /// brings the form back to ask before replacing it.
    pub(in crate::tui::app) fn on_export_done(&mut self, end: ExportEnd, ctx: &Ctx) -> Outcome {
        self.export = None;
        let form = self.export_form.take();
        let (kind, text) = match &end {
            ExportEnd::Exists(path) => {
                return match form {
                    Some(mut form) if !ctx.overlay_open => {
                        form.ask_overwrite(path.clone());
                        Outcome::Open(Overlay::Export(form))
                    }
                    _ => Outcome::News(
                        NoticeKind::Warning,
                        format!(
                            "{} exists: nothing exported (e to try again)",
                            path.display()
                        )
                        .into(),
                    ),
                };
            }
            // Where the file went is said once on screen: under the table when the pane
            // is on screen, else in the notice.
            ExportEnd::Written { path, rows } => (
                NoticeKind::Done,
                Said::Text(if ctx.focused {
                    format!("exported {rows} rows: the file is named under the table")
                } else {
                    format!("exported {rows} rows to {}", path.display())
                }),
            ),
            // What failed decides the words, which the view writes.
            ExportEnd::Stopped { .. } | ExportEnd::Failed(_) => {
                (NoticeKind::Error, Said::Export(end.clone()))
            }
        };
        self.export_end = Some(end);
        Outcome::News(kind, text)
    }
}
