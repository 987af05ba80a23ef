//! The name of every action, as `[keys.<context>]` of `config.toml` and the help write it:
//! the variant in snake case.

use super::Action;

impl Action {
    /// Every action, for reading their names back from `config.toml`.
    pub const ALL: &[Self] = &[
        Self::Quit,
        Self::Suspend,
        Self::Help,
        Self::NextPane,
        Self::PrevPane,
        Self::FocusJobs,
        Self::FocusComposer,
        Self::FocusVisitors,
        Self::Refresh,
        Self::TogglePause,
        Self::Up,
        Self::Down,
        Self::Top,
        Self::Bottom,
        Self::Open,
        Self::Close,
        Self::NewJob,
        Self::FollowUp,
        Self::Track,
        Self::Untrack,
        Self::Copy,
        Self::OpenLink,
        Self::Send,
        Self::LeaveComposer,
        Self::Editor,
        Self::ToNewJob,
        Self::NextPage,
        Self::PrevPage,
        Self::Filter,
        Self::Export,
        Self::MoreRows,
        Self::FewerRows,
        Self::NextField,
        Self::PrevField,
        Self::ChoiceLeft,
        Self::ChoiceRight,
        Self::Apply,
        Self::Mark,
        Self::ToggleChart,
        Self::Compare,
        Self::WholeRange,
        Self::NextTemplate,
        Self::Search,
        Self::SortNext,
        Self::SortReverse,
        Self::ClearFilter,
        Self::NextMatch,
        Self::PrevMatch,
        Self::Notices,
    ];

    /// The action's name in `[keys.<context>]` and in the help.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Quit => "quit",
            Self::Suspend => "suspend",
            Self::Help => "help",
            Self::NextPane => "next_pane",
            Self::PrevPane => "prev_pane",
            Self::FocusJobs => "focus_jobs",
            Self::FocusComposer => "focus_composer",
            Self::FocusVisitors => "focus_visitors",
            Self::Refresh => "refresh",
            Self::TogglePause => "toggle_pause",
            Self::Up => "up",
            Self::Down => "down",
            Self::Top => "top",
            Self::Bottom => "bottom",
            Self::Open => "open",
            Self::Close => "close",
            Self::NewJob => "new_job",
            Self::FollowUp => "follow_up",
            Self::Track => "track",
            Self::Untrack => "untrack",
            Self::Copy => "copy",
            Self::OpenLink => "open_link",
            Self::Send => "send",
            Self::LeaveComposer => "leave_composer",
            Self::Editor => "editor",
            Self::ToNewJob => "to_new_job",
            Self::NextPage => "next_page",
            Self::PrevPage => "prev_page",
            Self::Filter => "filter",
            Self::Export => "export",
            Self::MoreRows => "more_rows",
            Self::FewerRows => "fewer_rows",
            Self::NextField => "next_field",
            Self::PrevField => "prev_field",
            Self::ChoiceLeft => "choice_left",
            Self::ChoiceRight => "choice_right",
            Self::Apply => "apply",
            Self::Mark => "mark",
            Self::ToggleChart => "toggle_chart",
            Self::Compare => "compare",
            Self::WholeRange => "whole_range",
            Self::NextTemplate => "next_template",
            Self::Search => "search",
            Self::SortNext => "sort_next",
            Self::SortReverse => "sort_reverse",
            Self::ClearFilter => "clear_filter",
            Self::NextMatch => "next_match",
            Self::PrevMatch => "prev_match",
            Self::Notices => "notices",
        }
    }

    /// The action of a name, as `[keys.<context>]` writes it.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|action| action.name() == name)
    }
}
