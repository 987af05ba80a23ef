//! What each key means in each place. One table per context is both the dispatcher and
//! the help overlay, so `?` always lists every binding that works.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

mod action;

pub use action::Action;

/// Where keys are read: the focused pane, or an overlay on top of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyContext {
    Jobs,
    Composer,
    Visitors,
    Detail,
    Form,
    Help,
    /// A question that costs analytics requests: y or n.
    Confirm,
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
const HELP_F1: Binding = bind!([(KeyCode::F(1), NONE)], "F1", "this help", Help);
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

/// Keys that work everywhere but where text is typed (there, [`TYPING_GLOBAL`]). A
/// place's own binding of the same key wins: `q` closes the detail and the help.
pub const GLOBAL: &[Binding] = &[
    bind!([ch('q')], "q", "quit (drafts are saved)", Quit),
    QUIT_CTRL_C,
    bind!([ch('?'), (KeyCode::F(1), NONE)], "? F1", "this help", Help),
    NEXT_PANE,
    PREV_PANE,
    bind!([ch('1')], "1", "jobs", FocusJobs),
    bind!([ch('2')], "2", "composer", FocusComposer),
    bind!([ch('3')], "3", "visitors", FocusVisitors),
    bind!([ch('r')], "r", "refresh now", Refresh),
    bind!([ch('P')], "P", "pause or resume polling", TogglePause),
    SUSPEND,
];

/// The global keys that also work while typing: none of them is a character.
pub const TYPING_GLOBAL: &[Binding] = &[QUIT_CTRL_C, HELP_F1, NEXT_PANE, PREV_PANE, SUSPEND];

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
    bind!([ch('m')], "m", "follow-up to this job", FollowUp),
    bind!([ch('a')], "a", "track a job by its id", Track),
    bind!([ch('x')], "x", "untrack (history is kept)", Untrack),
    bind!([ch('y')], "y", "copy PR link or id", Copy),
    bind!([ch('o')], "o", "open PR link in a browser", OpenLink),
    bind!([ch('/')], "/", "filter as you type", Search),
    bind!([ch('s')], "s", "sort by the next column", SortNext),
    bind!([ch('S')], "S", "reverse the sort", SortReverse),
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
    bind!([ch('m')], "m", "follow-up to this job", FollowUp),
    bind!([ch('y')], "y", "copy PR link or id", Copy),
    bind!([ch('o')], "o", "open PR link in a browser", OpenLink),
    bind!([ch('/')], "/", "search the text", Search),
    bind!([ch('n')], "n", "next match", NextMatch),
    bind!([ch('N')], "N", "previous match", PrevMatch),
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
        [(KeyCode::PageDown, NONE), ch(']')],
        "PgDn ]",
        "next page (whole range: a screen)",
        NextPage
    ),
    bind!(
        [(KeyCode::PageUp, NONE), ch('[')],
        "PgUp [",
        "previous page (whole: a screen)",
        PrevPage
    ),
    bind!([ch(' ')], "Space", "mark or unmark this page", Mark),
    bind!([ch('n')], "n", "new job from the marked pages", NewJob),
    bind!([ch('c')], "c", "show or hide the chart", ToggleChart),
    bind!([ch('v')], "v", "compare with the period before", Compare),
    bind!([ch('w')], "w", "whole range or pages", WholeRange),
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
        "stop reading (chart, whole)",
        Close
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

/// The bindings of a context, without the global ones.
#[must_use]
pub fn bindings(context: KeyContext) -> &'static [Binding] {
    match context {
        KeyContext::Jobs => JOBS,
        KeyContext::Composer => COMPOSER,
        KeyContext::Visitors => VISITORS,
        KeyContext::Detail => DETAIL,
        KeyContext::Form => FORM,
        KeyContext::Help => HELP,
        KeyContext::Confirm => CONFIRM,
    }
}

/// The global keys of a context: all of them, or only those that type no text where
/// text is typed.
#[must_use]
pub fn globals(context: KeyContext) -> &'static [Binding] {
    match context {
        KeyContext::Jobs | KeyContext::Visitors | KeyContext::Detail | KeyContext::Help => GLOBAL,
        KeyContext::Composer | KeyContext::Form | KeyContext::Confirm => TYPING_GLOBAL,
    }
}

/// Whether a global binding is reachable in `context` (some key of it is not taken by
/// the context's own bindings), for the help.
#[must_use]
pub fn reachable(context: KeyContext, global: &Binding) -> bool {
    global.keys.iter().any(|key| {
        !bindings(context)
            .iter()
            .any(|b| b.keys.iter().any(|k| k == key))
    })
}

/// What `key` means in `context`: the context's own binding first, then the global one.
/// Key releases are ignored. Actions that write are returned under `--read-only` too, so
/// that `update` can say why they do nothing.
#[must_use]
pub fn action(context: KeyContext, key: &KeyEvent) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    bindings(context)
        .iter()
        .chain(globals(context))
        .find(|b| b.keys.iter().any(|k| matches(k, key)))
        .map(|b| b.action)
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
