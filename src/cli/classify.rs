//! `docdeck classify`: how a user agent is counted, which rule decided it, and what a
//! view of a path by it counts as.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::Outcome;
use super::import::load_rules;
use crate::server::traffic::ingest;
use crate::server::traffic::page::{self, NotAView};
use crate::server::traffic::rules::Verdict;
use crate::server::views::Traffic;

/// Prints a line to standard output; a closed pipe (`| head`) ends the output quietly
/// instead of a panic.
macro_rules! out {
    ($($arg:tt)*) => {
        super::output::emit(&format!("{}\n", format_args!($($arg)*)))?
    };
}
#[derive(Debug, Args)]
pub struct ClassifyArgs {
    /// The user agent, as the log has it
    #[arg(value_name = "UA")]
    pub user_agent: String,
    /// A requested path, to see whether it is a page, Markdown or an asset
    #[arg(value_name = "PATH")]
    pub path: Option<String>,
    /// User-agent rules tried before the shipped ones
    #[arg(long, value_name = "FILE")]
    pub ua_rules: Option<PathBuf>,
}

/// `docdeck classify "UA" [PATH]`: the class, the rule that decided it, and what a view of
/// PATH by this agent counts as.
pub fn classify(args: &ClassifyArgs) -> Outcome {
    let rules = load_rules(args.ua_rules.as_deref())?;
    let verdict = rules.classify(&args.user_agent);
    out!("class: {}", verdict.class.name());
    out!("rule:  {}", rule_text(&verdict));
    let path = args.path.as_deref();
    let pages = [("page views", false), ("Markdown views", true)];
    match path.map(page::page_of) {
        None => {
            for (what, markdown) in pages {
                out!("{what}: {}", counts(&verdict, markdown));
            }
        }
        Some(Err(why)) => out!(
            "{}: {}, not a page: not counted",
            crate::text::sanitize(path.unwrap_or_default()),
            match why {
                NotAView::Asset => "an asset",
                NotAView::Download => "a download or another file that is not a document",
                NotAView::Feed => "a feed poll",
                // page_of judges only the target.
                NotAView::Method | NotAView::Status => "not a request for a page",
            }
        ),
        Some(Ok(view)) => out!(
            "{}: a {} of {}: {}",
            crate::text::sanitize(path.unwrap_or_default()),
            if view.markdown {
                "Markdown view"
            } else {
                "page view"
            },
            crate::text::sanitize(&view.path),
            counts(&verdict, view.markdown)
        ),
    }
    Ok(ExitCode::SUCCESS)
}

fn rule_text(verdict: &Verdict<'_>) -> String {
    match verdict.rule {
        Some(rule) => format!("{:?} ({}, line {})", rule.pattern, rule.source, rule.line),
        None if verdict.class == crate::server::traffic::rules::Class::Human => {
            "none matched, and it starts with a browser marker (Mozilla/, Opera/ and others; perhaps after a device's or an app's name)".to_owned()
        }
        None => "none matched, and it does not start with a browser marker, so it is not a browser"
            .to_owned(),
    }
}

fn counts(verdict: &Verdict<'_>, markdown: bool) -> &'static str {
    match ingest::traffic_of(verdict.class, markdown) {
        Ok(Traffic::Human) => "counted as human",
        Ok(Traffic::Ai) => "counted as AI",
        Err(_) => "counted in neither column",
    }
}
