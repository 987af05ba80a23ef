//! The command line: what each subcommand accepts, and how failures become exit codes.
//! Exit codes: 0 success (with `--wait`: completed), 1 API, network or local failure,
//! 2 usage or configuration error (nothing was sent), 3 job failed, 4 job archived,
//! 5 `--wait --timeout` ran out; 130, 143 and 129 when Ctrl+C, SIGTERM or SIGHUP stop a wait.

/// Writes a line on standard error as `eprintln!` does, but a standard error that is gone
/// (a `| tee` stopped by Ctrl-C with the service) loses the line, not the command:
/// `eprintln!` panics there, before a service has stopped its agents.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod agent_args;
mod agent_exec;
mod args;
mod budget;
mod classify;
mod console;
pub(crate) mod console_prefs;
mod demo_agent;
mod doctor;
mod error;
mod impact;
mod impact_output;
mod import;
mod job_ids;
mod job_ref;
mod jobs;
mod man_sections;
mod output;
mod progress;
mod range;
mod read_on;
mod serve;
mod serve_keys;
mod setup;
mod shell;
mod signals;
mod signals_output;
mod store_arg;
mod table;
mod trend;
mod visitors;
mod visitors_args;
mod visitors_output;
mod wait;
mod whole;
mod whole_output;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

pub use error::CliError;
pub(crate) use setup::ClientArgs;

/// The version `--version` prints: the release and the commit it was built from.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("DOCDECK_COMMIT"), ")");

/// docdeck: start documentation agent jobs, follow them, and see who reads your docs.
#[derive(Debug, Parser)]
// A flag given twice takes the later value, in every command (the setting reaches each
// subcommand), so a wrapper script's defaults can be overridden by what it passes on
// ("$@" at its end), as the README says.
#[command(name = "docdeck", version = VERSION, about, long_about = None, max_term_width = 100)]
#[command(args_override_self = true)]
pub struct Cli {
    /// Without a command: open the console on the configured service.
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub client: ClientArgs,
    #[command(flatten)]
    pub console: console::ConsoleArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the local service with demo data in this process and open the console on it.
    Demo(console::DemoArgs),
    /// Create, follow up, read and list agent jobs.
    Jobs(JobsArgs),
    /// Unique visitors per page, split into human and AI traffic.
    Visitors(visitors_args::VisitorsArgs),
    /// What readers searched for: searches per query, the share clicked through and the
    /// page clicked most; a query nobody clicked points at a page the docs lack.
    Searches(signals::SearchesArgs),
    /// What readers said: feedback newest first, or counted per page with --by-page.
    Feedback(signals::FeedbackArgs),
    /// What readers asked the docs' assistant; --unanswered keeps the questions it could
    /// not answer.
    Assistant(signals::AssistantArgs),
    /// Run the local service: the whole interface on SQLite, for offline work and tests.
    Serve(serve::ServeArgs),
    /// Load views into a local service database from JSON lines, access logs (nginx/Apache,
    /// Caddy, Vercel, Cloudflare) or the hosted service's event stream; --follow reads on.
    Import(import::ImportArgs),
    /// Show how docdeck counts a user agent (and a path): AI, human or neither, and why.
    Classify(classify::ClassifyArgs),
    /// Check the configuration, key, service, clock, journal and terminal, one line each.
    Doctor(doctor::DoctorArgs),
    /// Print the completion script for a shell.
    #[command(after_help = shell::WHERE_COMPLETIONS_GO)]
    Completions(shell::CompletionsArgs),
    /// Print the manual page in roff, with every command in it.
    #[command(after_help = shell::WHERE_MAN_GOES)]
    Man(shell::ManArgs),
    /// Run an agent command so that it dies with the service that started it (used by
    /// `docdeck serve`'s real agent).
    #[command(hide = true)]
    AgentExec(agent_exec::AgentExecArgs),
}

/// `docdeck jobs`: the connection flags may also stand between `jobs` and its command.
#[derive(Debug, clap::Args)]
pub struct JobsArgs {
    #[command(subcommand)]
    pub command: JobsCommand,
    #[command(flatten)]
    pub client: ClientArgs,
}

#[derive(Debug, Subcommand)]
pub enum JobsCommand {
    /// Start a job with PROMPT (`-` reads it from standard input).
    Create(jobs::CreateArgs),
    /// Send a follow-up PROMPT to job ID (`-` reads it from standard input).
    Message(jobs::MessageArgs),
    /// Show job ID as the service has it now (with --wait, follow it to a final status).
    Get(jobs::GetArgs),
    /// List the jobs this machine follows, as last seen (--refresh reads active ones first).
    List(jobs::ListArgs),
    /// Start following an existing job (checks that it exists).
    Track(jobs::IdArgs),
    /// Stop following a job; its history stays in the journal.
    Untrack(jobs::IdArgs),
    /// Did the change help? Human and AI visitors of each page job ID touched, the window
    /// before its merge against the window after, beside the whole site's.
    Impact(impact::ImpactArgs),
}

/// What a successful command asks the process to exit with.
pub type Outcome = Result<ExitCode, CliError>;

/// Parses the command line of this process; connection flags before the command are
/// handed to it, as if they had been written after it. Exits with a usage message (code 2)
/// when the line makes no sense.
#[must_use]
pub fn parse() -> Cli {
    Cli::parse().hoisted().unwrap_or_else(|err| err.exit())
}

/// Runs a parsed command line to completion.
#[must_use]
pub fn run(cli: Cli) -> ExitCode {
    // A process that only waits for the agent: no runtime.
    if let Some(Command::AgentExec(args)) = &cli.command {
        return agent_exec::run(args).unwrap_or_else(|err| report(&err));
    }
    // The console against a service elsewhere does little work at a time: one thread
    // handles a burst of replies in one wake, where worker threads would wake each other.
    // The journal still runs on the blocking pool.
    let mut builder = if cli.command.is_none() {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        builder.worker_threads(2);
        builder
    };
    let runtime = match builder.enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => return report(&CliError::failed(format!("cannot start: {err}"))),
    };
    let outcome = runtime.block_on(async move {
        match cli.command {
            None => console::console(&cli.client, &cli.console).await,
            Some(Command::Demo(args)) => console::demo(&args).await,
            Some(Command::Jobs(args)) => jobs::run(args.command).await,
            Some(Command::Visitors(args)) => visitors::run(args).await,
            Some(Command::Searches(args)) => signals::searches(args).await,
            Some(Command::Feedback(args)) => signals::feedback(args).await,
            Some(Command::Assistant(args)) => signals::assistant(args).await,
            Some(Command::Serve(args)) => serve::serve(args).await,
            Some(Command::Import(args)) => import::run(&args),
            Some(Command::Classify(args)) => classify::classify(&args),
            Some(Command::Doctor(args)) => doctor::run(&args).await,
            Some(Command::Completions(args)) => shell::completions(&args),
            Some(Command::Man(args)) => shell::man(&args),
            Some(Command::AgentExec(args)) => agent_exec::run(&args),
        }
    });
    // Requests still in flight (none in normal use) are not waited for.
    runtime.shutdown_timeout(Duration::from_millis(100));
    match outcome {
        Ok(code) => code,
        Err(err) => report(&err),
    }
}

fn report(err: &CliError) -> ExitCode {
    say!("docdeck: {}", err.message);
    ExitCode::from(err.code)
}

/// Prints a warning on standard error, where it cannot mix with the command's output.
pub fn warn(message: &str) {
    say!("docdeck: warning: {message}");
}

/// Sends log lines to standard error. `DOCDECK_LOG` takes a filter such as `debug` or
/// `docdeck=debug,info`; the default shows warnings, and `serve` also shows info.
pub fn init_logging(cli: &Cli) {
    let default = if matches!(cli.command, Some(Command::Serve(_))) {
        "info"
    } else {
        "warn"
    };
    if matches!(cli.command, None | Some(Command::Demo(_))) {
        // The console owns the screen: log lines there would tear it, so they go to a
        // file in the state folder, and only when DOCDECK_LOG asks for them.
        init_console_logging();
        return;
    }
    let asked = std::env::var("DOCDECK_LOG")
        .ok()
        .filter(|text| !text.is_empty());
    let filter = match asked.as_deref().map(str::parse::<Targets>) {
        Some(Ok(filter)) => filter,
        Some(Err(err)) => {
            warn(&format!(
                "DOCDECK_LOG is not a log filter ({err}); use a level such as debug, or docdeck=debug,info"
            ));
            default.parse().unwrap_or_default()
        }
        None => default.parse().unwrap_or_default(),
    };
    let _ = tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_target(false),
        )
        .with(filter)
        .try_init();
}

/// The console's log: `docdeck.log` in the data folder, only when `DOCDECK_LOG` is set.
fn init_console_logging() {
    let Some(filter) = std::env::var("DOCDECK_LOG")
        .ok()
        .filter(|text| !text.is_empty())
        .and_then(|text| text.parse::<Targets>().ok())
    else {
        return;
    };
    let Ok(dir) = crate::config::data_dir() else {
        return;
    };
    let _ = crate::sqlite::create_private_dir(&dir);
    let path = dir.join("docdeck.log");
    // Log lines can quote prompts: the log is as private as the journal.
    let _ = crate::sqlite::create_private_file(&path);
    crate::sqlite::make_private(&path);
    let Ok(file) = std::fs::OpenOptions::new().append(true).open(path) else {
        return;
    };
    let _ = tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::sync::Mutex::new(file))
                .with_ansi(false)
                .with_target(false),
        )
        .with(filter)
        .try_init();
}

/// Reads PROMPT: `-` means standard input. Line breaks become LF (a CR from a terminal or
/// a CRLF file never reaches the agent), surrounding blank space is removed, and an empty
/// prompt is refused before anything is sent.
fn read_prompt(argument: &str) -> Result<String, CliError> {
    let text = if argument == "-" {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).map_err(|err| {
            CliError::usage(format!("cannot read the prompt from standard input: {err}"))
        })?;
        prompt_text(bytes)?
    } else {
        argument.to_owned()
    };
    let text = crate::text::normalize_newlines(&text);
    let text = text.trim();
    if text.is_empty() {
        return Err(CliError::usage(
            "the prompt is empty: write the instruction for the agent",
        ));
    }
    Ok(text.to_owned())
}

/// Default location of the local service's database.
fn default_service_db() -> Result<PathBuf, CliError> {
    Ok(crate::config::data_dir()?.join("service.sqlite"))
}

/// The prompt's bytes as text; bytes that are not UTF-8 are refused with where they are
/// and how to convert them, rather than an error that names neither.
fn prompt_text(bytes: Vec<u8>) -> Result<String, CliError> {
    String::from_utf8(bytes).map_err(|err| {
        let at = err.utf8_error().valid_up_to();
        CliError::usage(format!(
            "the prompt on standard input is not UTF-8 text (byte {at} is not): convert it first, such as with `iconv -f WINDOWS-1252 -t UTF-8 FILE | docdeck jobs create -`"
        ))
    })
}

#[cfg(test)]
mod prompt_tests {
    use super::*;

    #[test]
    fn a_prompt_that_is_not_utf8_names_the_byte_and_a_conversion() {
        let err = prompt_text(b"Caf\xe9 menu".to_vec()).unwrap_err();
        assert!(err.message.contains("byte 3"), "{}", err.message);
        assert!(err.message.contains("iconv"), "{}", err.message);
        assert_eq!(prompt_text(b"Caf\xc3\xa9".to_vec()).unwrap(), "Caf\u{e9}");
    }
}
