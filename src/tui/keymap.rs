//! What each key means in each place. One table per context is both the dispatcher and
//! the help overlay, so `?` always lists every binding that works.

mod keys;
mod names;
#[cfg(test)]
mod tests;
mod user;

use crossterm::event::{KeyCode, KeyModifiers};

pub use user::{Bound, Keymap, KeymapError};

mod action;

pub use action::Action;

/// Where keys are read: the focused pane, or an overlay on top of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyContext {
    Jobs,
    Composer,
    Visitors,
    /// The searches pane: searches with no click, unanswered questions.
    Searches,
    Detail,
    Form,
    Help,
    /// A question that costs analytics requests: y or n.
    Confirm,
}

impl KeyContext {
    /// Every place keys are read.
    pub const ALL: [Self; 8] = [
        Self::Jobs,
        Self::Composer,
        Self::Visitors,
        Self::Searches,
        Self::Detail,
        Self::Form,
        Self::Help,
        Self::Confirm,
    ];
}

/// One binding: the keys, how help shows them, what they do.
#[derive(Clone, Copy)]
pub struct Binding {
    pub keys: &'static [(KeyCode, KeyModifiers)],
    pub label: &'static str,
    pub help: &'static str,
    pub action: Action,
}

const NONE: KeyModifiers = KeyModifiers::NONE;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;

macro_rules! bind {
    ([$($key:expr),+], $label:expr, $help:expr, $action:ident) => {
        Binding { keys: &[$($key),+], label: $label, help: $help, action: Action::$action }
    };
}

const fn ch(c: char) -> (KeyCode, KeyModifiers) {
    (KeyCode::Char(c), NONE)
}

const QUIT_CTRL_C: Binding = bind!(
    [(KeyCode::Char('c'), CTRL)],
    "Ctrl+C",
    "quit (drafts are saved)",
    Quit
);
const NEXT_PANE: Binding = bind!([(KeyCode::Tab, NONE)], "Tab", "next pane", NextPane);
const PREV_PANE: Binding = bind!(
    [
        (KeyCode::BackTab, KeyModifiers::SHIFT),
        (KeyCode::BackTab, NONE)
    ],
    "Shift+Tab",
    "previous pane",
    PrevPane
);

const SUSPEND: Binding = bind!(
    [(KeyCode::Char('z'), CTRL)],
    "Ctrl+Z",
    "suspend (fg resumes)",
    Suspend
);

/// Keys that work everywhere; where text is typed, only those that type none (see
/// [`Keymap`]). A place's own binding of the same key wins: `q` closes the detail and the
/// help.
pub const GLOBAL: &[Binding] = &[
    bind!([ch('q')], "q", "quit (drafts are saved)", Quit),
    QUIT_CTRL_C,
    bind!([ch('?'), (KeyCode::F(1), NONE)], "? F1", "this help", Help),
    NEXT_PANE,
    PREV_PANE,
    bind!([ch('1')], "1", "jobs", FocusJobs),
    bind!([ch('2')], "2", "composer", FocusComposer),
    bind!([ch('3')], "3", "visitors", FocusVisitors),
    bind!([ch('4')], "4", "searches and questions", FocusSearches),
    bind!([ch('r')], "r", "refresh now", Refresh),
    bind!([ch('P')], "P", "pause or resume polling", TogglePause),
    bind!([ch('L')], "L", "log of recent notices", Notices),
    SUSPEND,
];

// A job's keys, the same in the jobs list and in a job's details.
const FOLLOW_UP: Binding = bind!([ch('m')], "m", "follow-up to this job", FollowUp);
const COPY: Binding = bind!([ch('y')], "y", "copy PR link or id", Copy);
const OPEN_LINK: Binding = bind!([ch('o')], "o", "open PR / failure's output", OpenLink);

const PAGES: [Binding; 2] = [
    bind!(
        [(KeyCode::PageDown, NONE)],
        "PgDn",
        "a screen down",
        NextPage
    ),
    bind!([(KeyCode::PageUp, NONE)], "PgUp", "a screen up", PrevPage),
];

const MOVES: [Binding; 4] = [
    bind!([ch('k'), (KeyCode::Up, NONE)], "k ↑", "up", Up),
    bind!([ch('j'), (KeyCode::Down, NONE)], "j ↓", "down", Down),
    bind!([ch('g'), (KeyCode::Home, NONE)], "g Home", "first", Top),
    bind!([ch('G'), (KeyCode::End, NONE)], "G End", "last", Bottom),
];

pub const JOBS: &[Binding] = &[
    MOVES[0],
    MOVES[1],
    MOVES[2],
    MOVES[3],
    PAGES[0],
    PAGES[1],
    bind!(
        [(KeyCode::Enter, NONE)],
        "Enter",
        "details and conversation",
        Open
    ),
    bind!([ch('n')], "n", "new job (composer)", NewJob),
    FOLLOW_UP,
    bind!([ch('a')], "a", "track a job by its id", Track),
    bind!([ch('x')], "x", "untrack (history is kept)", Untrack),
    COPY,
    OPEN_LINK,
    bind!([ch('/')], "/", "filter as you type", Search),
    bind!([ch('s')], "s", "sort by the next column", SortNext),
    bind!([ch('S')], "S", "reverse the sort", SortReverse),
    bind!([ch('I')], "I", "show or hide impact column", ImpactColumn),
    bind!(
        [(KeyCode::Esc, NONE)],
        "Esc",
        "clear the filter",
        ClearFilter
    ),
];

pub const DETAIL: &[Binding] = &[
    bind!(
        [(KeyCode::Esc, NONE), ch('q'), (KeyCode::Enter, NONE)],
        "Esc q",
        "close",
        Close
    ),
    MOVES[0],
    MOVES[1],
    MOVES[2],
    MOVES[3],
    PAGES[0],
    PAGES[1],
    FOLLOW_UP,
    COPY,
    OPEN_LINK,
    bind!([ch('/')], "/", "search the text", Search),
    bind!([ch('n')], "n", "next match", NextMatch),
    bind!([ch('N')], "N", "previous match", PrevMatch),
    bind!(
        [ch('i')],
        "i",
        "did the change help? (reads its pages' visitors)",
        Impact
    ),
    bind!(
        [ch('w')],
        "w",
        "the impact's window: 7, 14 or 28 days",
        ImpactWindow
    ),
];

pub const COMPOSER: &[Binding] = &[
    bind!([(KeyCode::Char('s'), CTRL)], "Ctrl+S", "send", Send),
    bind!(
        [(KeyCode::Esc, NONE)],
        "Esc",
        "back to the pane it was opened from (the draft is kept)",
        LeaveComposer
    ),
    bind!(
        [(KeyCode::Char('e'), CTRL)],
        "Ctrl+E",
        "edit in $EDITOR",
        Editor
    ),
    bind!(
        [(KeyCode::Char('n'), CTRL)],
        "Ctrl+N",
        "follow-up text to a new job",
        ToNewJob
    ),
    bind!(
        [(KeyCode::Char('t'), CTRL)],
        "Ctrl+T",
        "next template (a prompt from marked pages)",
        NextTemplate
    ),
    bind!([(KeyCode::F(1), NONE)], "F1", "this help", Help),
    bind!(
        [(KeyCode::Char('c'), CTRL)],
        "Ctrl+C",
        "quit (the draft is saved)",
        Quit
    ),
];

pub const VISITORS: &[Binding] = &[
    MOVES[0],
    MOVES[1],
    MOVES[2],
    MOVES[3],
    bind!(
        // `]` first: the footer's hints name the shortest key.
        [ch(']'), (KeyCode::PageDown, NONE)],
        "] PgDn",
        "next page (whole range: a screen)",
        NextPage
    ),
    bind!(
        [ch('['), (KeyCode::PageUp, NONE)],
        "[ PgUp",
        "previous page (whole range: a screen)",
        PrevPage
    ),
    bind!(
        [(KeyCode::Enter, NONE)],
        "Enter",
        "this page's figures and comments (Esc back)",
        Open
    ),
    bind!([ch(' ')], "Space", "mark or unmark this page", Mark),
    bind!([ch('n')], "n", "new job from the marked pages", NewJob),
    bind!([ch('c')], "c", "show or hide the chart", ToggleChart),
    bind!([ch('v')], "v", "compare with the period before", Compare),
    bind!(
        [ch('w')],
        "w",
        "read the whole range, or back to pages",
        WholeRange
    ),
    bind!(
        [ch('s')],
        "s",
        "sort by next column (whole range)",
        SortNext
    ),
    bind!(
        [ch('S')],
        "S",
        "reverse the sort (whole range)",
        SortReverse
    ),
    bind!([ch('/')], "/", "filter by path (whole range)", Search),
    bind!([ch('f')], "f", "dates and page size", Filter),
    bind!([ch('+'), ch('=')], "+", "more rows per page", MoreRows),
    bind!([ch('-')], "-", "fewer rows per page", FewerRows),
    bind!([ch('e')], "e", "export range to CSV/JSON", Export),
    bind!(
        [(KeyCode::Esc, NONE)],
        "Esc",
        "stop a read (chart, whole range); clear a filter",
        Close
    ),
];

/// The searches pane: its two lists, marking, and the job made of the marks.
pub const SEARCHES: &[Binding] = &[
    MOVES[0],
    MOVES[1],
    MOVES[2],
    MOVES[3],
    PAGES[0],
    PAGES[1],
    bind!(
        [ch('a')],
        "a",
        "searches or unanswered assistant questions",
        SwitchList
    ),
    bind!([ch(' ')], "Space", "mark or unmark this row", Mark),
    bind!(
        [ch('n')],
        "n",
        "new job asking for the missing page",
        NewJob
    ),
    bind!(
        [ch(']')],
        "]",
        "read the list's next page (when there is more)",
        MoreRows
    ),
    bind!(
        [ch('w')],
        "w",
        "read every page left (exact order and count)",
        WholeRange
    ),
];

/// The question before work that costs more than a few analytics requests.
pub const CONFIRM: &[Binding] = &[
    bind!(
        [ch('y'), (KeyCode::Enter, NONE)],
        "y Enter",
        "yes, spend them",
        Apply
    ),
    bind!([ch('n'), (KeyCode::Esc, NONE)], "n Esc", "no", Close),
];

pub const FORM: &[Binding] = &[
    bind!([(KeyCode::Enter, NONE)], "Enter", "apply", Apply),
    bind!([(KeyCode::Esc, NONE)], "Esc", "cancel", Close),
    bind!(
        [(KeyCode::Tab, NONE), (KeyCode::Down, NONE)],
        "Tab ↓",
        "next field",
        NextField
    ),
    bind!(
        [
            (KeyCode::BackTab, KeyModifiers::SHIFT),
            (KeyCode::BackTab, NONE),
            (KeyCode::Up, NONE)
        ],
        "Shift+Tab ↑",
        "previous field",
        PrevField
    ),
    bind!([(KeyCode::Left, NONE)], "←", "previous choice", ChoiceLeft),
    bind!([(KeyCode::Right, NONE)], "→", "next choice", ChoiceRight),
];

pub const HELP: &[Binding] = &[
    bind!(
        [
            (KeyCode::Esc, NONE),
            ch('?'),
            ch('q'),
            (KeyCode::F(1), NONE)
        ],
        "Esc",
        "close",
        Close
    ),
    MOVES[0],
    MOVES[1],
    MOVES[2],
    MOVES[3],
    PAGES[0],
    PAGES[1],
];

/// docdeck's own bindings of a context, without the global ones: the defaults the
/// person's `[keys.<context>]` change (see [`Keymap`]).
#[must_use]
pub fn bindings(context: KeyContext) -> &'static [Binding] {
    match context {
        KeyContext::Jobs => JOBS,
        KeyContext::Composer => COMPOSER,
        KeyContext::Visitors => VISITORS,
        KeyContext::Searches => SEARCHES,
        KeyContext::Detail => DETAIL,
        KeyContext::Form => FORM,
        KeyContext::Help => HELP,
        KeyContext::Confirm => CONFIRM,
    }
}
