//! What each key means in each place. One table per context is both the dispatcher and
//! the help overlay, so `?` always lists every binding that works.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// What a key asks for, before `update` decides what that means in the current state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Quit,
    Help,
    NextPane,
    PrevPane,
    FocusJobs,
    FocusComposer,
    FocusVisitors,
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
    NextPage,
    PrevPage,
    Filter,
    Export,
    MoreRows,
    FewerRows,
    NextField,
    PrevField,
    ChoiceLeft,
    ChoiceRight,
    Apply,
}

impl Action {
    /// Actions that change something on the service, hidden by `--read-only`.
    #[must_use]
    pub fn writes(self) -> bool {
        matches!(
            self,
            Self::NewJob | Self::FollowUp | Self::FocusComposer | Self::Send | Self::Editor
        )
    }
}

/// Where keys are read: the focused pane, or an overlay on top of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    Jobs,
    Composer,
    Visitors,
    Detail,
    Form,
    Help,
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

/// Keys that work in every pane except while typing.
pub const GLOBAL: &[Binding] = &[
    bind!(
        [ch('q'), (KeyCode::Char('c'), CTRL)],
        "q",
        "quit (drafts are saved)",
        Quit
    ),
    bind!([ch('?'), (KeyCode::F(1), NONE)], "?", "this help", Help),
    bind!([(KeyCode::Tab, NONE)], "Tab", "next pane", NextPane),
    bind!(
        [
            (KeyCode::BackTab, KeyModifiers::SHIFT),
            (KeyCode::BackTab, NONE)
        ],
        "Shift+Tab",
        "previous pane",
        PrevPane
    ),
    bind!([ch('1')], "1", "jobs", FocusJobs),
    bind!([ch('2')], "2", "composer", FocusComposer),
    bind!([ch('3')], "3", "visitors", FocusVisitors),
    bind!([ch('r')], "r", "refresh now", Refresh),
    bind!([ch('P')], "P", "pause or resume polling", TogglePause),
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
    bind!(
        [(KeyCode::Enter, NONE)],
        "Enter",
        "details and conversation",
        Open
    ),
    bind!([ch('n')], "n", "new job (composer)", NewJob),
    bind!([ch('m')], "m", "follow-up to this job", FollowUp),
    bind!([ch('a')], "a", "track a job by its id", Track),
    bind!([ch('x')], "x", "untrack (history is kept)", Untrack),
    bind!([ch('y')], "y", "copy PR link or id", Copy),
    bind!([ch('o')], "o", "open PR link in a browser", OpenLink),
];

pub const DETAIL: &[Binding] = &[
    bind!(
        [(KeyCode::Esc, NONE), (KeyCode::Enter, NONE)],
        "Esc",
        "close",
        Close
    ),
    MOVES[0],
    MOVES[1],
    MOVES[2],
    MOVES[3],
    bind!([ch('m')], "m", "follow-up to this job", FollowUp),
    bind!([ch('y')], "y", "copy PR link or id", Copy),
    bind!([ch('o')], "o", "open PR link in a browser", OpenLink),
];

pub const COMPOSER: &[Binding] = &[
    bind!([(KeyCode::Char('s'), CTRL)], "Ctrl+S", "send", Send),
    bind!(
        [(KeyCode::Esc, NONE)],
        "Esc",
        "leave (the draft is kept)",
        LeaveComposer
    ),
    bind!(
        [(KeyCode::Char('e'), CTRL)],
        "Ctrl+E",
        "edit in $EDITOR",
        Editor
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
        [ch('n'), (KeyCode::PageDown, NONE)],
        "n PgDn",
        "next page",
        NextPage
    ),
    bind!(
        [ch('p'), (KeyCode::PageUp, NONE)],
        "p PgUp",
        "previous page",
        PrevPage
    ),
    bind!([ch('f')], "f", "dates and page size", Filter),
    bind!([ch('+'), ch('=')], "+", "more rows per page", MoreRows),
    bind!([ch('-')], "-", "fewer rows per page", FewerRows),
    bind!([ch('e')], "e", "export range to CSV/JSON", Export),
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

pub const HELP: &[Binding] = &[bind!(
    [
        (KeyCode::Esc, NONE),
        ch('?'),
        ch('q'),
        (KeyCode::F(1), NONE)
    ],
    "Esc",
    "close",
    Close
)];

/// The bindings of a context, without the global ones.
#[must_use]
pub fn bindings(context: Context) -> &'static [Binding] {
    match context {
        Context::Jobs => JOBS,
        Context::Composer => COMPOSER,
        Context::Visitors => VISITORS,
        Context::Detail => DETAIL,
        Context::Form => FORM,
        Context::Help => HELP,
    }
}

/// Whether global keys apply: not while typing, and not inside an overlay.
#[must_use]
pub fn has_global(context: Context) -> bool {
    matches!(context, Context::Jobs | Context::Visitors)
}

/// What `key` means in `context`. Key releases and repeats of non-press kinds are ignored.
#[must_use]
pub fn action(context: Context, key: &KeyEvent, read_only: bool) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let global = if has_global(context) { GLOBAL } else { &[] };
    bindings(context)
        .iter()
        .chain(global)
        .find(|b| b.keys.iter().any(|k| matches(k, key)))
        .map(|b| b.action)
        .filter(|a| !(read_only && a.writes()))
}

fn matches(&(code, mods): &(KeyCode, KeyModifiers), key: &KeyEvent) -> bool {
    // Terminals differ on whether `G` or `?` carry SHIFT; the character already says it.
    let pressed = if matches!(key.code, KeyCode::Char(_)) {
        key.modifiers - KeyModifiers::SHIFT
    } else {
        key.modifiers
    };
    let code_matches = match (code, key.code) {
        (KeyCode::Char(a), KeyCode::Char(b)) if mods.contains(CTRL) => a.eq_ignore_ascii_case(&b),
        (a, b) => a == b,
    };
    code_matches && pressed == mods
}
