//! What a key asks for, named apart from the keys that ask it (the tables in
//! `keymap.rs`), and which of them mean the same everywhere or write to the service.

/// What a key asks for, before `update` decides what that means in the current state.
/// Its name in `[keys.<context>]` and in the help is the variant in snake case, derived
/// from the enum itself so that no list of names can drift from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::IntoStaticStr, strum::EnumString)]
#[strum(serialize_all = "snake_case")]
pub enum Action {
    Quit,
    /// Ctrl+Z: give the terminal back and stop as a shell job (raw mode turns the key
    /// into a key press instead of a signal); `fg` resumes.
    Suspend,
    Help,
    NextPane,
    PrevPane,
    FocusJobs,
    FocusComposer,
    FocusVisitors,
    /// `4`: the searches pane (what readers looked for and did not find).
    FocusSearches,
    Refresh,
    TogglePause,
    Up,
    Down,
    Top,
    Bottom,
    Open,
    Close,
    NewJob,
    FollowUp,
    Track,
    Untrack,
    Copy,
    OpenLink,
    Send,
    LeaveComposer,
    Editor,
    /// A follow-up's text becomes the new-job draft (an archived job takes no more).
    ToNewJob,
    NextPage,
    PrevPage,
    Filter,
    Export,
    MoreRows,
    FewerRows,
    /// Space in the visitors pane: mark or unmark the page under the cursor for a job.
    Mark,
    /// `c`: show or hide the trend chart (hidden leaves the rows more room at 80x24).
    ToggleChart,
    /// `v`: compare with the period before, of the same length.
    Compare,
    /// `w`: read every row of the range (or go back to the service's pages).
    WholeRange,
    /// Ctrl+T in the composer: the next template for a prompt built from marked pages.
    NextTemplate,
    NextField,
    PrevField,
    ChoiceLeft,
    ChoiceRight,
    Apply,
    /// `/`: filter the list as you type, or search the detail's text.
    Search,
    /// `s`: sort the list by the next column.
    SortNext,
    /// `S`: the same sort the other way.
    SortReverse,
    /// Esc in a list: drop the filter.
    ClearFilter,
    /// `n` / `N` in the detail: the next or previous match of the search.
    NextMatch,
    PrevMatch,
    /// `L`: the log of recent notices with their times.
    Notices,
    /// `a` in the searches pane: from the searches to the unanswered questions and back.
    SwitchList,
    /// `i` in a job's detail: read whether the change's pages are read more since the
    /// merge (a job read and a few analytics requests).
    Impact,
    /// `I` in the jobs list: show or hide the impact column (it never reads by itself).
    ImpactColumn,
    /// `w` in a job's detail: the impact's window, 7, 14 or 28 days, in turn.
    ImpactWindow,
}

impl Action {
    /// Actions that mean the same in every place: handled once, before the place's own.
    #[must_use]
    pub fn is_global(self) -> bool {
        matches!(
            self,
            Self::Quit
                | Self::Suspend
                | Self::Help
                | Self::NextPane
                | Self::PrevPane
                | Self::FocusJobs
                | Self::FocusComposer
                | Self::FocusVisitors
                | Self::FocusSearches
                | Self::Refresh
                | Self::TogglePause
                | Self::Notices
        )
    }

    /// Actions that change something on the service, hidden by `--read-only`.
    #[must_use]
    pub fn writes(self) -> bool {
        matches!(
            self,
            Self::NewJob | Self::FollowUp | Self::FocusComposer | Self::Send | Self::Editor
        )
    }
}
