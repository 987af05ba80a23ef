//! The keymap in force: the tables of `keymap.rs` as docdeck's defaults, with the
//! person's `[keys.<context>]` of `config.toml` applied. The same table dispatches the
//! keys and writes the help and the hints, so none of them can show a key that does
//! something else.

use std::collections::HashMap;

use crossterm::event::{KeyEvent, KeyEventKind};

use super::keys::{self, Key};
use super::{Action, Binding, GLOBAL, KeyContext};
use crate::config::KeyOverride;

/// One binding in force: the keys, how the help shows them, what they do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    pub keys: Vec<Key>,
    pub label: String,
    pub help: &'static str,
    pub action: Action,
}

impl Bound {
    fn from_default(binding: &Binding) -> Self {
        Self {
            keys: binding.keys.to_vec(),
            label: binding.label.to_owned(),
            help: binding.help,
            action: binding.action,
        }
    }

    fn with_keys(&self, keys: Vec<Key>) -> Self {
        Self {
            label: label(&keys),
            keys,
            help: self.help,
            action: self.action,
        }
    }

    fn takes(&self, key: Key) -> bool {
        let key = keys::normal(key);
        self.keys.iter().any(|k| keys::normal(*k) == key)
    }
}

/// How the help shows a list of keys: each key's name, with a space between.
fn label(keys: &[Key]) -> String {
    keys.iter()
        .map(|key| keys::name(*key))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A `[keys.<context>]` table's name, and where its bindings are in force.
const CONTEXTS: [(&str, Table); 7] = [
    ("global", Table::Global),
    ("jobs", Table::Own(KeyContext::Jobs)),
    ("detail", Table::Own(KeyContext::Detail)),
    ("composer", Table::Own(KeyContext::Composer)),
    ("visitors", Table::Own(KeyContext::Visitors)),
    ("searches", Table::Own(KeyContext::Searches)),
    ("forms", Table::Own(KeyContext::Form)),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Table {
    Global,
    Own(KeyContext),
}

/// Why the person's keys cannot be used, with the line of `config.toml` to correct.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct KeymapError {
    pub line: usize,
    pub message: String,
}

/// The keys of every place, as the person has them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keymap {
    own: HashMap<KeyContext, Vec<Bound>>,
    global: Vec<Bound>,
    /// The global keys that type no text, for the composer and forms.
    typing_global: Vec<Bound>,
}

impl Default for Keymap {
    /// docdeck's own keys, as the tables of `keymap.rs` have them.
    fn default() -> Self {
        let own = KeyContext::ALL
            .into_iter()
            .map(|context| {
                let table = super::bindings(context).iter().map(Bound::from_default);
                (context, table.collect())
            })
            .collect();
        Self::from_tables(own, GLOBAL.iter().map(Bound::from_default).collect())
    }
}

impl Keymap {
    fn from_tables(own: HashMap<KeyContext, Vec<Bound>>, global: Vec<Bound>) -> Self {
        let typing_global = global
            .iter()
            .filter_map(|bound| {
                let kept: Vec<Key> = bound
                    .keys
                    .iter()
                    .copied()
                    .filter(|key| !keys::edits_text(*key))
                    .collect();
                match kept.len() {
                    0 => None,
                    n if n == bound.keys.len() => Some(bound.clone()),
                    _ => Some(bound.with_keys(kept)),
                }
            })
            .collect();
        Self {
            own,
            global,
            typing_global,
        }
    }

    /// The defaults with the person's keys applied: each action named in a table gets
    /// exactly the keys given there (none: unbound). Unknown tables and actions, keys
    /// that cannot be read and a key bound twice in one table are refused with the line.
    pub fn build(overrides: &[KeyOverride]) -> Result<Self, KeymapError> {
        let mut keymap = Self::default();
        for (name, table) in CONTEXTS {
            let mine: Vec<&KeyOverride> = overrides.iter().filter(|o| o.context == name).collect();
            let bindings = match table {
                Table::Global => &mut keymap.global,
                Table::Own(context) => keymap.own.entry(context).or_default(),
            };
            apply(name, bindings, &mine)?;
        }
        if let Some(stray) = overrides
            .iter()
            .find(|o| !CONTEXTS.iter().any(|(name, _)| *name == o.context))
        {
            let known: Vec<&str> = CONTEXTS.iter().map(|(name, _)| *name).collect();
            return Err(KeymapError {
                line: stray.line,
                message: format!(
                    "there is no [keys.{}]: the places with keys are {}",
                    stray.context,
                    known.join(", ")
                ),
            });
        }
        Ok(Self::from_tables(keymap.own, keymap.global))
    }

    /// The bindings of a place, without the global ones.
    #[must_use]
    pub fn bindings(&self, context: KeyContext) -> &[Bound] {
        self.own.get(&context).map_or(&[], Vec::as_slice)
    }

    /// The global keys of a place: all of them, or only those that type no text where
    /// text is typed.
    #[must_use]
    pub fn globals(&self, context: KeyContext) -> &[Bound] {
        match context {
            KeyContext::Jobs
            | KeyContext::Visitors
            | KeyContext::Searches
            | KeyContext::Detail
            | KeyContext::Help => &self.global,
            KeyContext::Composer | KeyContext::Form | KeyContext::Confirm => &self.typing_global,
        }
    }

    /// Whether a global binding is reachable in `context` (some key of it is not taken by
    /// the place's own bindings), for the help.
    #[must_use]
    pub fn reachable(&self, context: KeyContext, global: &Bound) -> bool {
        global
            .keys
            .iter()
            .any(|key| !self.bindings(context).iter().any(|b| b.takes(*key)))
    }

    /// What `key` means in `context`: the place's own binding first, then the global one.
    /// Key releases are ignored. Actions that write are returned under `--read-only` too,
    /// so that `update` can say why they do nothing.
    #[must_use]
    pub fn action(&self, context: KeyContext, key: &KeyEvent) -> Option<Action> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let pressed = (key.code, key.modifiers);
        self.bindings(context)
            .iter()
            .chain(self.globals(context))
            .find(|b| b.takes(pressed))
            .map(|b| b.action)
    }

    /// The first key that does `action` in `context` (its own, else a global one), as
    /// the hints show it; `None` when no key does.
    #[must_use]
    pub fn key(&self, context: KeyContext, action: Action) -> Option<String> {
        self.bindings(context)
            .iter()
            .chain(self.globals(context))
            .filter(|b| b.action == action)
            .flat_map(|b| b.keys.iter())
            // A global key counts only where the place does not take it for itself.
            .find(|key| self.action(context, &KeyEvent::new(key.0, key.1)) == Some(action))
            .map(|key| keys::name(*key))
    }
}

impl Keymap {
    /// The key that does `action` in `context`, for a message that tells the person to
    /// press it; an action no key does is named as such, so the message stays true.
    #[must_use]
    pub fn key_or_name(&self, context: KeyContext, action: Action) -> String {
        self.key(context, action)
            .unwrap_or_else(|| format!("{} (no key bound)", action.name()))
    }
}

/// Applies one `[keys.<name>]` table to its bindings, then refuses a key bound twice.
fn apply(name: &str, bindings: &mut Vec<Bound>, mine: &[&KeyOverride]) -> Result<(), KeymapError> {
    // Where each action came from: the line of the person's entry, if it is theirs.
    let mut lines: HashMap<Action, usize> = HashMap::new();
    for entry in mine {
        let known: Vec<&str> = dedup(bindings.iter().map(|b| b.action.name()));
        let action = Action::from_name(&entry.action)
            .filter(|action| bindings.iter().any(|b| b.action == *action))
            .ok_or_else(|| KeymapError {
                line: entry.line,
                message: format!(
                    "{:?} is not an action of [keys.{name}]: the actions there are {}",
                    entry.action,
                    known.join(", ")
                ),
            })?;
        let keys = entry
            .keys
            .iter()
            .map(|text| {
                keys::parse(text).ok_or_else(|| KeymapError {
                    line: entry.line,
                    message: format!(
                        "cannot read the key {text:?} of {} in [keys.{name}]: write keys such as {}",
                        entry.action,
                        keys::EXAMPLES
                    ),
                })
            })
            .collect::<Result<Vec<Key>, _>>()?;
        let at = bindings.iter().position(|b| b.action == action);
        let first = at.map(|at| bindings[at].clone());
        bindings.retain(|b| b.action != action);
        if let (Some(at), Some(first), false) = (at, first, keys.is_empty()) {
            bindings.insert(at.min(bindings.len()), first.with_keys(keys));
        }
        lines.insert(action, entry.line);
    }
    check_twice(name, bindings, &lines)
}

/// A key may do one thing in a place: the first key found twice is refused, at the line
/// of the person's entry that brought it.
fn check_twice(
    name: &str,
    bindings: &[Bound],
    lines: &HashMap<Action, usize>,
) -> Result<(), KeymapError> {
    let mut seen: HashMap<Key, Action> = HashMap::new();
    for bound in bindings {
        for key in &bound.keys {
            let Some(earlier) = seen.insert(keys::normal(*key), bound.action) else {
                continue;
            };
            let whose = |action: Action| {
                lines.get(&action).map_or_else(
                    || format!("{} (docdeck's default)", action.name()),
                    |line| format!("{} (line {line})", action.name()),
                )
            };
            // The later of the person's lines, where the second binding was made.
            let (line, other) = match (lines.get(&bound.action), lines.get(&earlier)) {
                (Some(mine), Some(theirs)) if theirs > mine => (*theirs, bound.action),
                (Some(line), _) => (*line, earlier),
                (None, Some(line)) => (*line, bound.action),
                (None, None) => continue,
            };
            let fix = if earlier == bound.action {
                "write it once".to_owned()
            } else if lines.contains_key(&other) {
                "keep it in one of them".to_owned()
            } else {
                format!(
                    "give {} other keys too, or {} = [] to unbind it",
                    other.name(),
                    other.name()
                )
            };
            let both = if earlier == bound.action {
                format!("twice to {}", whose(earlier))
            } else {
                format!("to both {} and {}", whose(earlier), whose(bound.action))
            };
            return Err(KeymapError {
                line,
                message: format!(
                    "the key {} is bound {both} in [keys.{name}]: {fix}",
                    keys::name(*key)
                ),
            });
        }
    }
    Ok(())
}

fn dedup<'a>(names: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for name in names {
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}
