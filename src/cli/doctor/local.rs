//! The checks of this machine: the journal opens (and its schema version), and what the
//! console would find in this terminal (size, colour, NO_COLOR).

use std::io::IsTerminal as _;

use super::Check;
use crate::journal::Journal;

/// The smallest screen the console is laid out for.
const MIN_SIZE: (u16, u16) = (80, 24);

/// Opens the journal as every command does (creating it if there is none yet).
pub(crate) fn journal() -> Check {
    const NAME: &str = "journal";
    let path = match Journal::default_path() {
        Ok(path) => path,
        Err(err) => return Check::fail(NAME, err.to_string(), "set HOME, or XDG_DATA_HOME"),
    };
    let journal = match Journal::open(&path) {
        Ok(journal) => journal,
        Err(err) => {
            return Check::fail(
                NAME,
                err.to_string(),
                format!(
                    "check that {} is a folder you can write to",
                    path.parent().unwrap_or(&path).display()
                ),
            );
        }
    };
    if let Some(set_aside) = journal.set_aside() {
        return Check::warn(
            NAME,
            set_aside.to_string(),
            "nothing to do unless you need the old file's history",
        );
    }
    match journal.schema_version() {
        Ok((version, known)) => {
            let current = if usize::try_from(version).is_ok_and(|v| v == known) {
                "the current one".to_owned()
            } else {
                format!("this docdeck knows up to {known}")
            };
            Check::ok(
                NAME,
                format!(
                    "{} opens, schema version {version} ({current})",
                    path.display()
                ),
            )
        }
        Err(err) => Check::fail(
            NAME,
            err.to_string(),
            format!("move {} aside and run again", path.display()),
        ),
    }
}

/// Which analytics budget applies to the target's project, and where it comes from: the
/// limit the service stated in its answers (kept in the journal), or the hosted
/// service's documented 100 an hour where it has stated none.
pub(crate) fn analytics(scope: Option<&crate::journal::Scope>) -> Check {
    const NAME: &str = "analytics";
    let Some(scope) = scope else {
        return Check::skip(NAME, "the config and the project must load first");
    };
    let budget = Journal::default_path()
        .and_then(|path| Journal::open(&path))
        .and_then(|journal| {
            journal.analytics_budget(
                scope,
                crate::journal::ANALYTICS_HOURLY_LIMIT,
                chrono::Utc::now(),
            )
        });
    match budget {
        Ok(budget) => Check::ok(NAME, budget_text(&budget)),
        Err(err) => Check::skip(NAME, format!("the journal cannot say: {err}")),
    }
}

/// `89 of 100 requests left this hour; 100 an hour is the hosted service's documented limit…`
pub(crate) fn budget_text(budget: &crate::journal::AnalyticsBudget) -> String {
    let whose = match budget.source {
        crate::journal::LimitSource::Documented => format!(
            "{} an hour is the hosted service's documented limit: this service has stated none in an analytics answer yet",
            budget.limit
        ),
        crate::journal::LimitSource::Stated(at) => format!(
            "{} an hour as the service states it (RateLimit-Limit, {})",
            budget.limit,
            at.format("%Y-%m-%d %H:%M UTC")
        ),
    };
    format!(
        "{} of {} requests left this hour, as counted on this machine; {whose}",
        budget.left(),
        budget.limit
    )
}

/// What the terminal check looks at, gathered apart so the verdict can be tested.
#[derive(Debug, Clone, Default)]
pub(crate) struct TerminalFacts {
    pub stdin_tty: bool,
    pub stdout_tty: bool,
    pub size: Option<(u16, u16)>,
    pub no_color: bool,
    pub term: Option<String>,
    pub colorterm: Option<String>,
}

impl TerminalFacts {
    pub fn of_this_process() -> Self {
        let var = |name| std::env::var(name).ok().filter(|value| !value.is_empty());
        let stdout_tty = std::io::stdout().is_terminal();
        Self {
            stdin_tty: std::io::stdin().is_terminal(),
            stdout_tty,
            size: stdout_tty
                .then(|| crossterm::terminal::size().ok())
                .flatten(),
            // The console's own rule: NO_COLOR set to anything but empty.
            no_color: var("NO_COLOR").is_some(),
            term: var("TERM"),
            colorterm: var("COLORTERM"),
        }
    }

    fn colour(&self) -> String {
        if self.no_color {
            return "colour off (NO_COLOR is set)".to_owned();
        }
        let colorterm = self.colorterm.as_deref().unwrap_or_default();
        let term = self.term.as_deref().unwrap_or_default();
        if matches!(colorterm, "truecolor" | "24bit") {
            "24-bit colour (COLORTERM)".to_owned()
        } else if term.contains("256color") {
            format!("256 colours (TERM={term})")
        } else if term.is_empty() {
            "16 colours (TERM is not set)".to_owned()
        } else {
            format!("16 colours (TERM={term})")
        }
    }
}

pub(crate) fn terminal(facts: &TerminalFacts) -> Check {
    const NAME: &str = "terminal";
    let colour = facts.colour();
    if !facts.stdout_tty || !facts.stdin_tty {
        let which = match (facts.stdin_tty, facts.stdout_tty) {
            (false, false) => "standard input and output are not a terminal",
            (true, false) => "standard output is not a terminal",
            _ => "standard input is not a terminal",
        };
        return Check::ok(
            NAME,
            format!("{which} (fine for scripts; the console needs one); {colour}"),
        );
    }
    if facts.term.as_deref() == Some("dumb") {
        return Check::warn(
            NAME,
            "TERM=dumb: this terminal may not move the cursor",
            "run the console in a full terminal (TERM such as xterm-256color)",
        );
    }
    match facts.size {
        Some((width, height)) if width < MIN_SIZE.0 || height < MIN_SIZE.1 => Check::warn(
            NAME,
            format!("{width}x{height}, {colour}"),
            "the console is laid out for 80x24 or more: enlarge the window",
        ),
        Some((width, height)) => Check::ok(NAME, format!("{width}x{height}, {colour}")),
        None => Check::warn(
            NAME,
            format!("the size cannot be read; {colour}"),
            "the console may not draw right: check the terminal or the multiplexer",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Verdict;
    use super::*;

    fn tty(size: (u16, u16)) -> TerminalFacts {
        TerminalFacts {
            stdin_tty: true,
            stdout_tty: true,
            size: Some(size),
            term: Some("xterm-256color".to_owned()),
            ..TerminalFacts::default()
        }
    }

    #[test]
    fn the_terminal_line_gives_size_and_colour() {
        let line = terminal(&tty((120, 40)));
        assert_eq!(line.verdict, Verdict::Ok);
        assert_eq!(line.text, "120x40, 256 colours (TERM=xterm-256color)");
        let small = terminal(&tty((60, 20)));
        assert_eq!(small.verdict, Verdict::Warn);
        assert!(small.to_string().contains("80x24"), "{small}");
        let no_color = terminal(&TerminalFacts {
            no_color: true,
            ..tty((80, 24))
        });
        assert!(
            no_color.text.contains("colour off (NO_COLOR is set)"),
            "{no_color}"
        );
        let truecolor = TerminalFacts {
            colorterm: Some("truecolor".into()),
            ..tty((80, 24))
        };
        assert!(terminal(&truecolor).text.contains("24-bit"));
    }

    #[test]
    fn a_pipe_is_fine_and_said() {
        let piped = terminal(&TerminalFacts {
            stdin_tty: true,
            ..TerminalFacts::default()
        });
        assert_eq!(piped.verdict, Verdict::Ok);
        assert!(
            piped.text.starts_with("standard output is not a terminal"),
            "{piped}"
        );
    }
}

#[cfg(test)]
mod budget_tests {
    use chrono::{DateTime, Utc};

    use super::budget_text;
    use crate::journal::{AnalyticsBudget, LimitSource};

    #[test]
    fn the_budget_line_says_where_its_limit_comes_from() {
        let hosted = AnalyticsBudget::new(100, Vec::new());
        assert_eq!(
            budget_text(&hosted),
            "100 of 100 requests left this hour, as counted on this machine; 100 an hour is the hosted service's documented limit: this service has stated none in an analytics answer yet"
        );
        let mut stated = AnalyticsBudget::new(1000, vec![Utc::now()]);
        stated.source = LimitSource::Stated(
            DateTime::parse_from_rfc3339("2026-11-27T00:50:00Z")
                .unwrap()
                .with_timezone(&Utc),
        );
        assert_eq!(
            budget_text(&stated),
            "999 of 1000 requests left this hour, as counted on this machine; 1000 an hour as the service states it (RateLimit-Limit, 2026-11-27 00:50 UTC)"
        );
    }
}
