//! User-agent rules: the shipped lists in `assets/ua-rules/rules.txt` and a user's
//! `--ua-rules FILE`, parsed into one matcher that says which class a user agent is and
//! which rule said so.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use thiserror::Error;

/// The shipped rules (their sources are named at the top of the file).
const SHIPPED: &str = include_str!("../../../assets/ua-rules/rules.txt");
/// How the shipped rules are named in `docdeck classify`.
pub const SHIPPED_LABEL: &str = "built-in rules (assets/ua-rules/rules.txt)";

/// What a user agent is, in the order rules are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// An AI assistant fetching a page for a person: AI.
    AiAnswer,
    /// A search-index crawler: counted in neither column.
    Search,
    /// A crawler gathering training data: neither.
    Training,
    /// Any other robot: neither.
    OtherBot,
    /// A person's browser: page views human, Markdown views AI.
    Human,
    /// A person's client that is not a browser: Markdown views AI, page views neither.
    NotBrowser,
}

impl Class {
    const ALL: [Self; 6] = [
        Self::AiAnswer,
        Self::Search,
        Self::Training,
        Self::OtherBot,
        Self::Human,
        Self::NotBrowser,
    ];

    /// The section name in a rules file.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::AiAnswer => "ai-answer",
            Self::Search => "search",
            Self::Training => "training",
            Self::OtherBot => "other-bot",
            Self::Human => "human",
            Self::NotBrowser => "not-browser",
        }
    }

    fn from_section(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|class| class.name() == name)
    }
}

/// One pattern of a rules file. A pattern matches whole words: where it begins (ends)
/// with a letter or digit, the user agent must not have one just before (after) it, so
/// `NING/` does not match `Lightning/2.6`. A `*` at either end lifts that: `*bot` matches
/// any word that ends in `bot` (`Googlebot`, `SomeBot/1.0`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub class: Class,
    /// The pattern as written in its file, `*` included.
    pub pattern: String,
    /// Which file it came from, for `docdeck classify`.
    pub source: String,
    pub line: usize,
}

/// A user agent's class and the rule that decided it (`None`: no rule matched, and the
/// browser markers decided).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict<'a> {
    pub class: Class,
    pub rule: Option<&'a Rule>,
}

/// Why a rules file was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum RulesError {
    #[error("{file} line {line}: a pattern before any [section]; start with one of {sections}")]
    NoSection {
        file: String,
        line: usize,
        sections: String,
    },
    #[error("{file} line {line}: unknown section [{name}]; the sections are {sections}")]
    UnknownSection {
        file: String,
        line: usize,
        name: String,
        sections: String,
    },
    #[error("{file} line {line}: a pattern of only `*`; write the words to match, such as *bot")]
    EmptyPattern { file: String, line: usize },
    #[error("cannot build the user-agent matcher: {0}")]
    Build(String),
}

/// Every rule in the order it is tried, and the matchers built from them.
#[derive(Debug, Clone)]
pub struct Rules {
    rules: Vec<Rule>,
    matcher: AhoCorasick,
    /// What a browser's user agent starts with.
    markers: Vec<String>,
}

impl Rule {
    /// The text searched for: the pattern without its `*`s.
    fn needle(&self) -> &str {
        self.pattern.trim_matches('*')
    }

    /// Whether a match of this rule at `start..end` of `agent` stands at word boundaries.
    fn matches_at(&self, agent: &[u8], start: usize, end: usize) -> bool {
        let word = |at: Option<&u8>| at.is_some_and(u8::is_ascii_alphanumeric);
        let open_start = self.pattern.starts_with('*') || !word(agent.get(start));
        let open_end =
            self.pattern.ends_with('*') || !word(end.checked_sub(1).and_then(|at| agent.get(at)));
        (open_start || !word(start.checked_sub(1).and_then(|at| agent.get(at))))
            && (open_end || !word(agent.get(end)))
    }
}

/// The patterns of one file, by class, and its browser markers.
struct Parsed {
    rules: Vec<Rule>,
    markers: Vec<String>,
}

fn section_names() -> String {
    let mut names: Vec<String> = Class::ALL
        .iter()
        .map(|class| format!("[{}]", class.name()))
        .collect();
    names.push("[browser-marker]".to_owned());
    names.join(", ")
}

fn parse(text: &str, source: &str) -> Result<Parsed, RulesError> {
    // None: before any section; Some(None): the browser markers.
    let mut section: Option<Option<Class>> = None;
    let mut parsed = Parsed {
        rules: Vec::new(),
        markers: Vec::new(),
    };
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line
            .trim()
            .strip_prefix('[')
            .and_then(|s| s.strip_suffix(']'))
        {
            section = match (name, Class::from_section(name)) {
                ("browser-marker", _) => Some(None),
                (_, Some(class)) => Some(Some(class)),
                (_, None) => {
                    return Err(RulesError::UnknownSection {
                        file: source.to_owned(),
                        line: index + 1,
                        name: name.to_owned(),
                        sections: section_names(),
                    });
                }
            };
            continue;
        }
        match section {
            None => {
                return Err(RulesError::NoSection {
                    file: source.to_owned(),
                    line: index + 1,
                    sections: section_names(),
                });
            }
            Some(None) => parsed.markers.push(line.to_owned()),
            Some(Some(_)) if line.trim_matches('*').is_empty() => {
                return Err(RulesError::EmptyPattern {
                    file: source.to_owned(),
                    line: index + 1,
                });
            }
            Some(Some(class)) => parsed.rules.push(Rule {
                class,
                pattern: line.to_owned(),
                source: source.to_owned(),
                line: index + 1,
            }),
        }
    }
    // First match wins in class order; within a class, in file order.
    parsed.rules.sort_by_key(|rule| rule.class);
    Ok(parsed)
}

impl Rules {
    /// The shipped rules alone.
    pub fn shipped() -> Result<Self, RulesError> {
        Self::build(vec![parse(SHIPPED, SHIPPED_LABEL)?])
    }

    /// A user's rules (`--ua-rules`), tried before the shipped ones, so they can both add
    /// agents and override a shipped rule. Its browser markers add to the shipped ones.
    pub fn with_user(text: &str, source: &str) -> Result<Self, RulesError> {
        Self::build(vec![parse(text, source)?, parse(SHIPPED, SHIPPED_LABEL)?])
    }

    fn build(files: Vec<Parsed>) -> Result<Self, RulesError> {
        let mut rules = Vec::new();
        let mut markers = Vec::new();
        for file in files {
            rules.extend(file.rules);
            markers.extend(file.markers);
        }
        let builder = || {
            let mut builder = AhoCorasickBuilder::new();
            builder
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::Standard);
            builder
        };
        let matcher = builder()
            .build(rules.iter().map(Rule::needle))
            .map_err(|err| RulesError::Build(err.to_string()))?;
        Ok(Self {
            rules,
            matcher,
            markers,
        })
    }

    /// The class of `user_agent`: the first rule (in order) whose pattern it contains as
    /// whole words; failing that, a person's browser if it starts with a browser marker
    /// (`Mozilla/`: a feed fetcher that names it in brackets is not a browser), else not
    /// a browser.
    #[must_use]
    pub fn classify(&self, user_agent: &str) -> Verdict<'_> {
        let bytes = user_agent.as_bytes();
        let first = self
            .matcher
            .find_overlapping_iter(user_agent)
            .filter(|found| {
                self.rules
                    .get(found.pattern().as_usize())
                    .is_some_and(|rule| rule.matches_at(bytes, found.start(), found.end()))
            })
            .map(|found| found.pattern().as_usize())
            .min();
        if let Some(rule) = first.and_then(|index| self.rules.get(index)) {
            return Verdict {
                class: rule.class,
                rule: Some(rule),
            };
        }
        let class = if starts_as_browser(user_agent.trim_start(), &self.markers) {
            Class::Human
        } else {
            Class::NotBrowser
        };
        Verdict { class, rule: None }
    }
}

/// Whether `agent` starts with a browser marker, or with one after what phones, in-app
/// browsers and cut log fields put before it: an app's own product token
/// (`Job Search/24.4.0 Mozilla/5.0 …`, `iBrowser/3.0/Mozilla/5.0 …`), or plain words of a
/// device or of a platform whose start was cut off (`HTC MAX 4G Opera/9.5 …`,
/// `Android 13) AppleWebKit/537.36 …`). Not after a bracket, a comma or a bar: a fetcher
/// that names Mozilla in brackets (`Digg Feed Fetcher 1.0 (Mozilla/5.0 …)`) or a tool
/// that lists a browser after its own name (`Anonymous, Mozilla/5.0 …`) is not a browser.
/// Some phones' builds write every product with spaces around its slash
/// (`Mozilla / 5.0 (Linux; …) AppleWebKit / 537.36`): those spaces are not counted.
fn starts_as_browser(agent: &str, markers: &[String]) -> bool {
    let agent = agent.replace(" / ", "/");
    let lower = agent.to_ascii_lowercase();
    markers.iter().any(|marker| {
        let marker = marker.to_ascii_lowercase();
        lower.match_indices(&marker).any(|(at, _)| {
            let before = &agent[..at];
            let boundary = !before
                .bytes()
                .next_back()
                .is_some_and(|b| b.is_ascii_alphanumeric());
            boundary && lead_in(before)
        })
    })
}

/// What may come before a browser marker: nothing, plain words (letters, digits,
/// spaces and `.-_;)`), one product token `Name/version` and a space or slash, or a
/// platform's name and a slash.
fn lead_in(before: &str) -> bool {
    let name_byte = |b: u8| b.is_ascii_alphanumeric() || b" .-_".contains(&b);
    if before.bytes().all(|b| name_byte(b) || b";)".contains(&b)) {
        return true;
    }
    let Some(token) = before
        .strip_suffix(' ')
        .or_else(|| before.strip_suffix('/'))
    else {
        return false;
    };
    // A platform named with a bare slash before its browser (`J2ME/UCWEB7.0`, Java phones).
    if before.ends_with('/') && !token.is_empty() && token.bytes().all(name_byte) {
        return true;
    }
    let Some((name, version)) = token.split_once('/') else {
        return false;
    };
    !name.trim().is_empty()
        && name.bytes().all(name_byte)
        && !version.is_empty()
        && version
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-_".contains(&b))
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
