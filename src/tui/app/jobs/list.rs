//! The rows of the jobs list and how they are shown: kept newest first, then filtered
//! and sorted as the user chose (`/`, `s`, `S`) through the shared table helper
//! ([`crate::tui::app::table::Arrangement`]), with the cursor on its job by id, so refreshes,
//! re-sorting and filtering never move it to another job.

use std::cmp::Ordering;

use chrono::{DateTime, Utc};

use super::poll::Scheduler;
use crate::api::{Job, JobStatus};
use crate::journal::TrackedJob;
use crate::listing::{Direction, Pattern};
use crate::tui::app::table::{Arrangeable, Arrangement, FilterEdit, FilterKey, SortKey};
use crate::tui::keymap::Action;

/// One tracked job as the console shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRow {
    pub id: String,
    pub job: Option<Job>,
    pub first_prompt: Option<String>,
    pub seen_at: Option<DateTime<Utc>>,
    /// Why the last read failed, when it did (for example, the job is gone).
    pub problem: Option<String>,
    /// When a change of its status was last seen (by this console or an earlier one).
    pub changed_at: Option<DateTime<Utc>>,
}

impl From<TrackedJob> for JobRow {
    /// A job as the journal tracks it: its last snapshot, no read failed yet.
    fn from(tracked: TrackedJob) -> Self {
        Self {
            id: tracked.id,
            job: tracked.snapshot,
            first_prompt: tracked.first_prompt,
            seen_at: tracked.seen_at,
            problem: None,
            changed_at: tracked.changed_at,
        }
    }
}

impl JobRow {
    #[must_use]
    pub fn status(&self) -> Option<&JobStatus> {
        self.job.as_ref().and_then(|j| j.status.as_ref())
    }

    #[must_use]
    pub fn pr_link(&self) -> Option<&str> {
        self.job.as_ref().and_then(|j| j.pr_link.as_deref())
    }

    pub(crate) fn created_at(&self) -> Option<DateTime<Utc>> {
        self.job.as_ref().and_then(|j| j.created_at)
    }

    /// The repository and ref, as the job names them.
    fn repository(&self) -> (Option<&str>, Option<&str>) {
        let source = self.job.as_ref().and_then(|j| j.source.as_ref());
        (
            source.and_then(|s| s.repository.as_deref()),
            source.and_then(|s| s.git_ref.as_deref()),
        )
    }
}

/// What the jobs list sorts by (`s` steps through them in this order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobSort {
    Created,
    Status,
    /// The age of the last status change seen.
    Changed,
    Repository,
}

impl SortKey for JobSort {
    const CYCLE: &'static [Self] = &[Self::Created, Self::Status, Self::Changed, Self::Repository];

    fn first_direction(self) -> Direction {
        match self {
            // Newest first, the most recently changed first.
            Self::Created | Self::Changed => Direction::Descending,
            // Active first; A to Z.
            Self::Status | Self::Repository => Direction::Ascending,
        }
    }
}

impl JobSort {
    /// How the title says the order: "newest first", "by status ▲".
    #[must_use]
    pub fn words(self, direction: Direction) -> String {
        let down = direction == Direction::Descending;
        match self {
            Self::Created if down => "newest first".to_owned(),
            Self::Created => "oldest first".to_owned(),
            Self::Changed if down => "last changed first".to_owned(),
            Self::Changed => "longest unchanged first".to_owned(),
            Self::Status => format!("by status {}", direction.arrow()),
            Self::Repository => format!("by repository {}", direction.arrow()),
        }
    }
}

/// Where a status sorts ascending: what is running, then what needs a look, then what
/// is done.
fn status_rank(status: Option<&JobStatus>) -> u8 {
    match status {
        Some(JobStatus::Active) => 0,
        Some(JobStatus::Failed) => 1,
        Some(JobStatus::Completed) => 2,
        Some(JobStatus::Archived) => 3,
        Some(JobStatus::Unknown(_)) => 4,
        None => 5,
    }
}

impl Arrangeable<JobSort> for JobRow {
    type Id = String;

    fn id(&self) -> String {
        self.id.clone()
    }

    /// Id, prompt, status, repository and model.
    fn matches(&self, pattern: &Pattern) -> bool {
        let job = self.job.as_ref();
        let (repository, git_ref) = self.repository();
        let status = self.status().map(JobStatus::as_wire);
        // Rows of unknown outcome have no job: their id is not a job's id.
        let id = crate::tui::app::unsure_submission(&self.id)
            .is_none()
            .then_some(self.id.as_str());
        pattern.matches_any(
            [
                id,
                self.first_prompt.as_deref(),
                status,
                repository,
                git_ref,
                job.and_then(|j| j.model.as_deref()),
            ]
            .into_iter()
            .flatten(),
        )
    }

    fn compare(&self, other: &Self, column: JobSort) -> Ordering {
        match column {
            // Rows not read yet (no time) count as the newest.
            JobSort::Created => created_key(self).cmp(&created_key(other)),
            JobSort::Status => status_rank(self.status()).cmp(&status_rank(other.status())),
            JobSort::Changed => self.changed_at.cmp(&other.changed_at),
            JobSort::Repository => {
                let key = |row: &Self| {
                    let (repository, git_ref) = row.repository();
                    // Rows without one go last, A to Z.
                    (
                        repository.is_none(),
                        repository.map(str::to_lowercase),
                        git_ref.map(str::to_owned),
                    )
                };
                key(self).cmp(&key(other))
            }
        }
    }
}

fn created_key(row: &JobRow) -> i64 {
    row.created_at().map_or(i64::MAX, |t| t.timestamp_millis())
}

/// The jobs pane: tracked jobs, newest first, how they are shown, and when each is read
/// next.
#[derive(Debug)]
pub struct JobList {
    /// Every row, newest first (the order ties keep when sorted another way).
    pub rows: Vec<JobRow>,
    view: Arrangement<JobSort, String>,
    /// When each job is read next.
    pub poll: Scheduler,
    /// When the first age in the list next reads differently (shown or not).
    pub(in crate::tui::app) ages_due: Option<DateTime<Utc>>,
    /// The impacts read this session (`i` in a job's detail).
    pub impacts: super::Impacts,
}

impl JobList {
    #[must_use]
    pub fn new(poll: Scheduler) -> Self {
        Self {
            rows: Vec::new(),
            view: Arrangement::default(),
            poll,
            ages_due: None,
            impacts: super::Impacts::default(),
        }
    }

    pub fn load(&mut self, jobs: Vec<TrackedJob>) {
        self.rows = jobs.into_iter().map(JobRow::from).collect();
        self.sort();
        self.view.arrange(&self.rows);
    }

    /// Newest first by creation time; jobs not read yet stay on top. Stable, so equal
    /// times keep the journal's order.
    fn sort(&mut self) {
        self.rows.sort_by_key(order_key);
    }

    /// The sort, filter and order shown.
    #[must_use]
    pub fn view(&self) -> &Arrangement<JobSort, String> {
        &self.view
    }

    /// The position in `rows` of the selected job.
    #[must_use]
    pub fn selected_index(&self) -> Option<usize> {
        self.view.cursor_row()
    }

    #[must_use]
    pub fn selected(&self) -> Option<&JobRow> {
        self.selected_index().map(|i| &self.rows[i])
    }

    #[must_use]
    pub fn get(&self, id: &str) -> Option<&JobRow> {
        self.rows.iter().find(|r| r.id == id)
    }

    /// Puts the cursor on the job, when it is shown.
    pub fn select(&mut self, id: &str) {
        self.view.select(&self.rows, &id.to_owned());
    }

    /// Puts the cursor on the job, dropping a filter that hides it (a job just made or
    /// tracked here is the one the user wants to see).
    pub fn reveal(&mut self, id: &str) {
        let id = id.to_owned();
        if !self.view.select(&self.rows, &id) {
            self.view.clear_filter();
            self.view.arrange(&self.rows);
            self.view.select(&self.rows, &id);
        }
    }

    /// Puts the cursor on the row shown at `position` (a click).
    pub fn select_shown(&mut self, position: usize) {
        self.view.place_cursor(&self.rows, position);
    }

    /// Moves the cursor for a key of the list (see [`crate::tui::app::cursor::moved`]), with
    /// `page` rows on screen; whether the key was one.
    pub(in crate::tui::app) fn navigate(&mut self, action: Action, page: usize) -> bool {
        self.view.move_cursor(&self.rows, action, page)
    }

    /// `s`, `S`: the next sort, or the same the other way; the cursor stays on its job.
    pub(in crate::tui::app) fn resort(&mut self, action: Action) {
        match action {
            Action::SortNext => self.view.cycle_sort(),
            _ => self.view.reverse(),
        }
        self.view.arrange(&self.rows);
    }

    /// `/`: the filter line takes the keys.
    pub(in crate::tui::app) fn start_filter(&mut self) {
        self.view.start_filter();
    }

    /// A key of the filter line; what it did.
    pub(in crate::tui::app) fn edit_filter(&mut self, key: FilterKey) -> FilterEdit {
        let edit = self.view.edit_filter(key);
        if matches!(edit, FilterEdit::Changed | FilterEdit::Cleared) {
            self.view.arrange(&self.rows);
        }
        edit
    }

    /// Leaves the filter line as Enter does, if it is being typed in (the pane is left).
    pub(in crate::tui::app) fn keep_filter(&mut self) {
        if self.view.typing() {
            self.edit_filter(FilterKey::Enter);
        }
    }

    /// Esc in the list: drops an applied filter; whether there was one.
    pub(in crate::tui::app) fn clear_filter(&mut self) -> bool {
        if self.view.filter().as_typed().is_empty() {
            return false;
        }
        self.view.clear_filter();
        self.view.arrange(&self.rows);
        true
    }

    /// Adds or replaces a row, keeping the order and the cursor. Arranges again only
    /// when the row changed: a read of one of 10,000 jobs that brings nothing new stays
    /// cheap.
    pub fn upsert(&mut self, row: JobRow) {
        match self.rows.iter_mut().find(|r| r.id == row.id) {
            Some(existing) => {
                let before = order_key(existing);
                let status_changed = existing.status().is_some()
                    && row.status().is_some()
                    && existing.status() != row.status();
                let mut updated = JobRow {
                    first_prompt: row.first_prompt.or_else(|| existing.first_prompt.clone()),
                    changed_at: row.changed_at.or(existing.changed_at),
                    ..row
                };
                if status_changed {
                    updated.changed_at = updated.seen_at.or(updated.changed_at);
                }
                let shown_same = *existing
                    == JobRow {
                        seen_at: existing.seen_at,
                        ..updated.clone()
                    };
                *existing = updated;
                if order_key(existing) != before {
                    self.sort();
                }
                if !shown_same {
                    self.view.arrange(&self.rows);
                }
            }
            None => {
                // A cursor on the first row shown follows what comes before it (the
                // newest job, newest first), as a log followed at its end does; one the
                // user moved down stays on its job.
                let at_top = self.view.cursor_position() == Some(0);
                // Before the rows of the same time, as a stable sort after inserting first.
                let key = order_key(&row);
                let at = self.rows.partition_point(|r| order_key(r) < key);
                self.rows.insert(at, row);
                self.view.arrange(&self.rows);
                if at_top {
                    self.view.place_cursor(&self.rows, 0);
                }
            }
        }
    }

    /// Removes a row; the cursor goes to the row that took its place.
    pub fn remove(&mut self, id: &str) {
        let Some(at) = self.rows.iter().position(|r| r.id == id) else {
            return;
        };
        self.rows.remove(at);
        self.view.arrange(&self.rows);
    }

    /// Every job with its last known status, for a refresh.
    #[must_use]
    pub fn statuses(&self) -> Vec<(String, Option<JobStatus>)> {
        self.rows
            .iter()
            .filter(|r| crate::tui::app::unsure_submission(&r.id).is_none())
            .map(|r| (r.id.clone(), r.status().cloned()))
            .collect()
    }
}

/// Where a row is kept: newest creation first, rows not read yet (no time) on top.
fn order_key(row: &JobRow) -> std::cmp::Reverse<i64> {
    std::cmp::Reverse(created_key(row))
}
