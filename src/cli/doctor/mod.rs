//! `docdeck doctor`: checks, one line each, everything between this machine and a working
//! docdeck (configuration, key, service, clock, journal, terminal), and says for each
//! failure what to do. Exit 0 when nothing failed, 1 otherwise.

mod local;
mod service;
mod settings;
mod verdict;

use std::fmt;
use std::process::ExitCode;

use super::output::emit;
use super::{CliError, ClientArgs, Outcome};

/// `docdeck doctor`: the connection flags, to check the settings a command would use.
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    #[command(flatten)]
    pub client: ClientArgs,
}

/// How one check went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    Ok,
    /// Worth fixing, but docdeck works: does not change the exit code.
    Warn,
    Fail,
    /// Could not be checked because an earlier check failed.
    Skip,
}

impl Verdict {
    fn word(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Warn => "warn",
            Self::Fail => "FAIL",
            Self::Skip => "skip",
        }
    }
}

/// One line of the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Check {
    pub verdict: Verdict,
    pub name: &'static str,
    pub text: String,
    /// What to do, for a check that did not pass.
    pub fix: Option<String>,
}

impl Check {
    pub fn ok(name: &'static str, text: impl Into<String>) -> Self {
        Self {
            verdict: Verdict::Ok,
            name,
            text: text.into(),
            fix: None,
        }
    }

    pub fn warn(name: &'static str, text: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            verdict: Verdict::Warn,
            name,
            text: text.into(),
            fix: Some(fix.into()),
        }
    }

    pub fn fail(name: &'static str, text: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            verdict: Verdict::Fail,
            name,
            text: text.into(),
            fix: Some(fix.into()),
        }
    }

    pub fn skip(name: &'static str, why: impl Into<String>) -> Self {
        Self {
            verdict: Verdict::Skip,
            name,
            text: why.into(),
            fix: None,
        }
    }
}

/// Width of the name column: the longest name, so the texts line up.
const NAME_WIDTH: usize = 13;

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Server and file text reaches these lines; nothing in them may drive the terminal.
        let text = crate::text::sanitize(&self.text);
        write!(
            f,
            "{:<4}  {:<NAME_WIDTH$}  {text}",
            self.verdict.word(),
            self.name
        )?;
        if let Some(fix) = &self.fix {
            write!(f, " → {}", crate::text::sanitize(fix))?;
        }
        Ok(())
    }
}

/// Prints the lines as they come and remembers whether any failed.
pub(crate) struct Report {
    failed: bool,
}

impl Report {
    pub fn add(&mut self, check: &Check) -> Result<(), CliError> {
        self.failed |= check.verdict == Verdict::Fail;
        emit(&format!("{check}\n"))
    }
}

/// Runs every check in order, printing each line as it is known; exit 1 if any failed.
pub async fn run(args: &DoctorArgs) -> Outcome {
    let mut report = Report { failed: false };
    let found = settings::check(&args.client);
    for check in &found.checks {
        report.add(check)?;
    }
    service::check(found.target.as_ref(), &mut report).await?;
    report.add(&local::journal())?;
    let scope = found.target.as_ref().and_then(|target| {
        let project = target.credentials.as_ref().ok()?.0.clone();
        Some(crate::journal::Scope {
            service: crate::config::service_id(&target.base_url),
            project,
        })
    });
    report.add(&local::analytics(scope.as_ref()))?;
    report.add(&local::terminal(&local::TerminalFacts::of_this_process()))?;
    Ok(if report.failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_has_the_verdict_the_name_the_text_and_what_to_do() {
        let line = Check::fail("clock", "5 min ahead", "set the clock").to_string();
        assert_eq!(line, "FAIL  clock          5 min ahead → set the clock");
        let line = Check::ok("journal", "opens").to_string();
        assert_eq!(line, "ok    journal        opens");
    }

    #[test]
    fn control_characters_from_outside_cannot_reach_the_terminal() {
        let line = Check::fail("service", "said \u{1b}[2Jhi\nthere", "x").to_string();
        assert!(!line.contains('\u{1b}') && !line.contains('\n'), "{line:?}");
    }
}
