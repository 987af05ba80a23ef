//! `f`: the visitors pane's dates (a preset or custom) and rows per page.

use chrono::NaiveDate;
use ratatui_textarea::TextArea;

use super::{field, paste_into, show_focus, value};
use crossterm::event::KeyEvent;

use super::type_into;
use crate::api::{DateParam, VisitorsQuery, query::MAX_LIMIT};
use crate::tui::app::DateRange;
use crate::tui::keymap::Action;

/// Which field of the filter form has the cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormField {
    Range,
    From,
    To,
    Rows,
}

/// The ranges the filter form offers, in order, each with its name; `None` is "custom":
/// the dates typed in the form.
pub const PRESETS: [(&str, Option<DateRange>); 6] = [
    ("7 days", Some(DateRange::LastDays(7))),
    ("30 days", Some(DateRange::LastDays(30))),
    ("90 days", Some(DateRange::LastDays(90))),
    ("month", Some(DateRange::ThisMonth)),
    ("custom", None),
    ("all", Some(DateRange::AllTime)),
];

/// The names of [`PRESETS`], as the form shows them.
#[must_use]
pub fn preset_names() -> [&'static str; PRESETS.len()] {
    PRESETS.map(|(name, _)| name)
}

/// Which choice of [`PRESETS`] stands for `range`: "custom" when no preset is it.
fn choice_of(range: &DateRange) -> usize {
    PRESETS
        .iter()
        .position(|(_, preset)| preset.as_ref() == Some(range))
        .unwrap_or_else(custom_choice)
}

/// The "custom" choice of [`PRESETS`].
fn custom_choice() -> usize {
    PRESETS
        .iter()
        .position(|(_, preset)| preset.is_none())
        .unwrap_or(0)
}

/// `f`: dates (a preset or custom) and rows per page.
#[derive(Debug)]
pub struct FilterForm {
    pub(super) field: FormField,
    pub choice: usize,
    pub from: TextArea<'static>,
    pub to: TextArea<'static>,
    pub rows: TextArea<'static>,
    /// Enter was pressed with a field marked: the form says to fix them (in the form, so
    /// the words go away with it).
    pub refused: bool,
    /// What is wrong with the fields as they stand: checked when they change, not when
    /// they are drawn.
    problems: FilterProblems,
    today: NaiveDate,
}

/// What is wrong with each field of the filter form, if anything.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FilterProblems {
    pub from: Option<String>,
    pub to: Option<String>,
    pub rows: Option<String>,
    pub range: Option<String>,
}

impl FilterForm {
    /// A key of the form: `Some` when Enter applies a range and page size that check out.
    pub(in crate::tui::app) fn on_key(
        &mut self,
        key: &KeyEvent,
        action: Option<Action>,
    ) -> Option<(DateRange, u32)> {
        match action {
            Some(Action::Apply) => {
                if let Ok(checked) = self.check() {
                    return Some(checked);
                }
                self.refused = true;
            }
            Some(Action::NextField) => self.next_field(true),
            Some(Action::PrevField) => self.next_field(false),
            Some(Action::ChoiceLeft | Action::ChoiceRight) if self.field == FormField::Range => {
                self.choose(if action == Some(Action::ChoiceLeft) {
                    -1
                } else {
                    1
                });
            }
            _ => {
                if let Some(area) = self.focused_text() {
                    type_into(area, key);
                    self.typed();
                }
            }
        }
        None
    }

    #[must_use]
    pub fn new(range: &DateRange, limit: u32, today: NaiveDate) -> Self {
        let choice = choice_of(range);
        let (from, to) = range.bounds(today);
        let show = |d| DateParam::shown(d, "");
        let mut form = Self {
            field: FormField::Range,
            choice,
            from: field(&show(from), false),
            to: field(&show(to), false),
            rows: field(&limit.to_string(), false),
            refused: false,
            problems: FilterProblems::default(),
            today,
        };
        form.recheck();
        form
    }

    /// Which field has the cursor.
    #[must_use]
    pub fn field(&self) -> FormField {
        self.field
    }

    /// What is wrong with the fields, as last checked.
    #[must_use]
    pub fn problems(&self) -> &FilterProblems {
        &self.problems
    }

    fn recheck(&mut self) {
        self.problems = self.check().err().unwrap_or_default();
    }

    fn show_focus(&mut self) {
        show_focus(&mut self.from, self.field == FormField::From);
        show_focus(&mut self.to, self.field == FormField::To);
        show_focus(&mut self.rows, self.field == FormField::Rows);
    }

    fn preset(&self) -> Option<DateRange> {
        PRESETS.get(self.choice).and_then(|(_, range)| *range)
    }

    /// Picks another preset and shows its dates in the date fields.
    pub(super) fn choose(&mut self, step: isize) {
        let len = PRESETS.len().cast_signed();
        self.choice = (self.choice.cast_signed() + step)
            .rem_euclid(len)
            .cast_unsigned();
        if let Some(range) = self.preset() {
            let (from, to) = range.bounds(self.today);
            let show = |d| DateParam::shown(d, "");
            self.from = field(&show(from), false);
            self.to = field(&show(to), false);
        }
        self.recheck();
    }

    pub fn paste(&mut self, text: &str) {
        match self.field {
            FormField::Range => return,
            FormField::From => paste_into(&mut self.from, text),
            FormField::To => paste_into(&mut self.to, text),
            FormField::Rows => paste_into(&mut self.rows, text),
        }
        self.typed();
    }

    /// A field's text changed: a typed date makes the range custom, and the fields are
    /// checked again.
    pub(super) fn typed(&mut self) {
        if matches!(self.field, FormField::From | FormField::To) {
            self.choice = custom_choice();
        }
        self.recheck();
    }

    /// The range and page size, or what is wrong with them.
    pub fn check(&self) -> Result<(DateRange, u32), FilterProblems> {
        let mut problems = FilterProblems::default();
        let date = |field, area: &TextArea<'_>, slot: &mut Option<String>| {
            let text = value(area);
            if text.is_empty() {
                return None;
            }
            DateParam::parse(field, &text)
                .map_err(|e| *slot = Some(e.to_string()))
                .ok()
        };
        // Named as the form names its fields, not as the interface's parameters.
        let from = date("from", &self.from, &mut problems.from);
        let to = date("to", &self.to, &mut problems.to);
        let rows = value(&self.rows);
        let limit = rows
            .parse::<u32>()
            .ok()
            .filter(|l| (1..=MAX_LIMIT).contains(l));
        if limit.is_none() {
            problems.rows = Some(format!(
                "rows per page must be a whole number from 1 to {MAX_LIMIT}"
            ));
        }
        let range = self.preset().unwrap_or(DateRange::Custom { from, to });
        let (date_from, date_to) = range.bounds(self.today);
        let query = VisitorsQuery {
            date_from,
            date_to,
            limit: None,
            offset: None,
        };
        if problems.from.is_none() && problems.to.is_none() {
            problems.range = query.validate().err().map(|e| {
                e.to_string()
                    .replace("dateFrom", "from")
                    .replace("dateTo", "to")
            });
        }
        match limit {
            Some(limit) if problems == FilterProblems::default() => Ok((range, limit)),
            _ => Err(problems),
        }
    }

    pub(super) fn focused_text(&mut self) -> Option<&mut TextArea<'static>> {
        match self.field {
            FormField::Range => None,
            FormField::From => Some(&mut self.from),
            FormField::To => Some(&mut self.to),
            FormField::Rows => Some(&mut self.rows),
        }
    }

    pub(super) fn next_field(&mut self, forward: bool) {
        const ORDER: [FormField; 4] = [
            FormField::Range,
            FormField::From,
            FormField::To,
            FormField::Rows,
        ];
        let at = ORDER.iter().position(|f| *f == self.field).unwrap_or(0);
        self.field = ORDER[if forward { (at + 1) % 4 } else { (at + 3) % 4 }];
        self.show_focus();
    }
}
