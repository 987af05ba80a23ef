//! `docdeck import`: loading views into the local service's database (JSON lines, access
//! logs, the hosted service's events; once or following live files).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use clap::{Args, ValueEnum};

use super::store_arg::db_location;
use super::{CliError, Outcome};
use crate::server::db::DbLocation;
use crate::server::import::ImportError;
use crate::server::seed::Claimed;
use crate::server::traffic::formats::LogFormat;
use crate::server::traffic::rules::Rules;
use crate::server::traffic::search::SearchUrl;
use crate::server::traffic::{self, Importer, Settings, Summary, follow};

/// Prints a line to standard output; a closed pipe (`| head`) ends the output quietly
/// instead of a panic.
macro_rules! out {
    ($($arg:tt)*) => {
        super::output::emit(&format!("{}\n", format_args!($($arg)*)))?
    };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// One JSON object a line: ts (RFC 3339), path, visitorId, traffic (human or ai)
    Jsonl,
    /// nginx/Apache combined log (the default of both)
    Combined,
    /// nginx/Apache common log: no user agent, so every page view counts as human
    Common,
    /// Caddy's JSON access log
    Caddy,
    /// The hosted service's analytics event stream (docs.content.view events)
    Mintlify,
    /// Vercel's log drain (NDJSON)
    Vercel,
    /// Cloudflare Logpush HTTP requests (NDJSON)
    Cloudflare,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Database of the local service: a file, or a postgres:// URL (DOCDECK_DATABASE_URL
    /// may hold it instead) [default: service.sqlite in the data folder]
    #[arg(long, value_name = "PATH|URL")]
    pub db: Option<String>,
    /// Project the views belong to
    #[arg(long, value_name = "ID", default_value = "demo")]
    pub project: String,
    /// Format of the records [default: recognised from the first lines of the first file]
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// Keep reading the files as they grow, across rotation and truncation, until Ctrl-C
    /// or SIGTERM; a restart resumes where it stopped
    #[arg(long)]
    pub follow: bool,
    /// A broken line fails its whole file (jsonl always does)
    #[arg(long)]
    pub strict: bool,
    /// User-agent rules tried before the shipped ones (same format as
    /// assets/ua-rules/rules.txt)
    #[arg(long, value_name = "FILE")]
    pub ua_rules: Option<PathBuf>,
    /// Delete the project's invented views (from `serve`'s demo seed) before importing:
    /// real views are never mixed with invented ones
    #[arg(long)]
    pub discard_demo: bool,
    /// The site's search page and the parameter holding the words, as PATH?PARAM=: its
    /// requests by people are searches (shown by `docdeck searches`), not page views, and
    /// a page then opened from it is the result they clicked; `none` counts them as pages
    #[arg(long, value_name = "PATH?PARAM=", default_value = "/search?q=")]
    pub search_url: String,
    /// Files to read; `-` is standard input, names ending in .gz are read as gzip
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
}

/// `--search-url`: the search page, or `None` for `none`.
fn search_url(text: &str) -> Result<Option<SearchUrl>, CliError> {
    if text == "none" {
        return Ok(None);
    }
    SearchUrl::parse(text).map(Some).map_err(CliError::usage)
}

fn cannot_open(path: &Path, err: &std::io::Error) -> CliError {
    CliError::failed(format!(
        "cannot open {}: {err}; check the path, or use - for standard input",
        path.display()
    ))
}

fn format_name(format: FormatArg) -> String {
    format
        .to_possible_value()
        .map(|value| value.get_name().to_owned())
        .unwrap_or_default()
}

fn log_format(format: FormatArg) -> Option<LogFormat> {
    match format {
        FormatArg::Jsonl => None,
        FormatArg::Combined => Some(LogFormat::Combined),
        FormatArg::Common => Some(LogFormat::Common),
        FormatArg::Caddy => Some(LogFormat::Caddy),
        FormatArg::Mintlify => Some(LogFormat::Mintlify),
        FormatArg::Vercel => Some(LogFormat::Vercel),
        FormatArg::Cloudflare => Some(LogFormat::Cloudflare),
    }
}

pub(super) fn load_rules(path: Option<&Path>) -> Result<Rules, CliError> {
    let rules = match path {
        None => Rules::shipped(),
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|err| {
                CliError::usage(format!("cannot read --ua-rules {}: {err}", path.display()))
            })?;
            Rules::with_user(
                &crate::text::normalize_newlines(&text),
                &path.display().to_string(),
            )
        }
    };
    rules.map_err(|err| CliError::usage(err.to_string()))
}

/// Lines looked at to recognise a format, and the bytes read for them at most.
const SNIFF_LINES: usize = 8;
const SNIFF_BYTES: u64 = 256 * 1024;

/// The format given, or the one the first lines of the first file are in (said on
/// standard error, since a wrong guess would count nothing).
fn resolve_format(args: &ImportArgs) -> Result<FormatArg, CliError> {
    if let Some(format) = args.format {
        return Ok(format);
    }
    let Some(path) = args.files.first() else {
        return Ok(FormatArg::Jsonl);
    };
    let lines = first_lines(path)?;
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    // JSON lines that no JSON log format reads are views (whose own errors then name
    // the line at fault).
    let json = lines
        .first()
        .is_some_and(|line| line.trim_start().starts_with('{'));
    let format = match traffic::formats::detect(&lines).map(format_arg) {
        None if json => Some(FormatArg::Jsonl),
        found => found,
    };
    let name = if path.as_os_str() == "-" {
        "standard input".to_owned()
    } else {
        path.display().to_string()
    };
    match format {
        Some(format) => {
            say!(
                "docdeck: reading {name} as --format {} (recognised from its first lines)",
                format_name(format)
            );
            Ok(format)
        }
        None if lines.is_empty() => Ok(FormatArg::Jsonl),
        None => Err(CliError::usage(format!(
            "cannot tell the format of {name} from its first lines; give --format (jsonl, combined, common, caddy, mintlify, vercel or cloudflare)"
        ))),
    }
}

/// The first non-blank lines of a file, read without taking them from standard input
/// (its buffer is only looked at), so the import then reads them again.
fn first_lines(path: &Path) -> Result<Vec<String>, CliError> {
    use std::io::{BufRead as _, Read as _};
    let text = if path.as_os_str() == "-" {
        let stdin = std::io::stdin();
        let mut lock = stdin.lock();
        let buffer = lock.fill_buf().map_err(|err| cannot_open(path, &err))?;
        String::from_utf8_lossy(buffer).into_owned()
    } else {
        let regular = std::fs::metadata(path)
            .map_err(|err| cannot_open(path, &err))?
            .is_file();
        if !regular {
            // A pipe's lines would be gone once looked at.
            return Err(CliError::usage(format!(
                "give --format for {}: it is not a regular file, so its first lines cannot be read twice",
                path.display()
            )));
        }
        let input = traffic::open(path, Arc::default()).map_err(|err| cannot_open(path, &err))?;
        let mut text = Vec::new();
        let _ = input.take(SNIFF_BYTES).read_to_end(&mut text);
        String::from_utf8_lossy(&text).into_owned()
    };
    Ok(text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .take(SNIFF_LINES)
        .map(str::to_owned)
        .collect())
}

fn format_arg(format: LogFormat) -> FormatArg {
    match format {
        LogFormat::Combined => FormatArg::Combined,
        LogFormat::Common => FormatArg::Common,
        LogFormat::Caddy => FormatArg::Caddy,
        LogFormat::Mintlify => FormatArg::Mintlify,
        LogFormat::Vercel => FormatArg::Vercel,
        LogFormat::Cloudflare => FormatArg::Cloudflare,
    }
}

/// Refuses flag combinations that cannot work, before anything is read.
fn check(args: &ImportArgs, format: FormatArg) -> Result<(), CliError> {
    if args.project.is_empty() {
        return Err(CliError::usage("--project must not be empty"));
    }
    if format == FormatArg::Jsonl && (args.follow || args.ua_rules.is_some()) {
        return Err(CliError::usage(
            "--follow and --ua-rules are for logs: give --format combined, common, caddy, mintlify, vercel or cloudflare (jsonl lines carry their class)",
        ));
    }
    if args.follow
        && let Some(path) = args.files.iter().find(|path| !follow::followable(path))
    {
        return Err(CliError::usage(format!(
            "--follow cannot follow {}: standard input, pipes, FIFOs and .gz files do not grow as a log file does; import them without --follow (a FIFO is then read as lines come, and what was read is committed whenever it pauses)",
            path.display()
        )));
    }
    Ok(())
}

pub fn run(args: &ImportArgs) -> Outcome {
    // Flags first: a bad one is said before any input is opened or read.
    let search = search_url(&args.search_url)?;
    if args.project.is_empty() {
        // Before the format is recognised, which says "reading …".
        return Err(CliError::usage("--project must not be empty"));
    }
    let format = resolve_format(args)?;
    check(args, format)?;
    let location = db_location(args.db.as_deref())?;
    if location == DbLocation::Memory {
        return Err(CliError::usage(
            "importing into :memory: would keep nothing: give --db a file",
        ));
    }
    let settings = Settings {
        project: args.project.clone(),
        format: log_format(format),
        rules: Arc::new(load_rules(args.ua_rules.as_deref())?),
        strict: args.strict,
        search,
        discard_demo: args.discard_demo,
    };
    // PostgreSQL's synchronous client runs a runtime of its own: the import runs on a
    // thread of its own, off the async runtime's.
    std::thread::scope(|scope| {
        scope
            .spawn(|| import(args, format, &location, settings))
            .join()
            .unwrap_or_else(|_| Err(CliError::failed("the import stopped on an internal error")))
    })
}

fn import(
    args: &ImportArgs,
    format: FormatArg,
    location: &DbLocation,
    settings: Settings,
) -> Outcome {
    let jsonl = settings.format.is_none();
    let mut importer =
        Importer::open(location, settings).map_err(|err| CliError::failed(err.to_string()))?;
    say_claimed(&importer.claimed, &args.project);
    if jsonl {
        return import_jsonl(&mut importer, args);
    }
    if args.follow {
        return follow_files(&mut importer, args);
    }
    let mut total = Summary::default();
    let stop = stop_on_signals()?;
    let progress = importer.progress();
    let ticker = super::progress::Ticker::start(&progress);
    for path in &args.files {
        if stop.load(std::sync::atomic::Ordering::SeqCst) {
            break;
        }
        let input =
            traffic::open(path, Arc::clone(&stop)).map_err(|err| cannot_open(path, &err))?;
        let summary = importer
            .import(input)
            .map_err(|err| stopped(path, &err, importer.committed(), importer.strict()))?;
        ticker.suspend(|| super::output::emit(&format!("{}: {summary}\n", path.display())))?;
        if summary.lines > 0 && summary.broken == summary.lines {
            super::warn(&format!(
                "no line of {} reads as {:?}: is it in another --format (jsonl, combined, common, caddy, mintlify, vercel, cloudflare)?",
                path.display(),
                format_name(format)
            ));
        }
        total.add(&summary);
    }
    ticker.finish();
    if args.files.len() > 1 {
        out!("all files: {total}");
    }
    if stop.load(std::sync::atomic::Ordering::SeqCst) {
        say!(
            "docdeck: stopped by a signal: what was read before it is kept; import the same files again to read the rest (nothing is added twice)"
        );
    }
    out!(
        "project {}: {} added",
        args.project,
        traffic::summary::plural(total.kept(), "view")
    );
    Ok(ExitCode::SUCCESS)
}

/// Why an import of `path` stopped, and what of it stays: a full disk is said as such.
fn stopped(path: &Path, err: &ImportError, committed: u64, strict: bool) -> CliError {
    let disk_full = matches!(
        err,
        ImportError::Store(crate::server::db::StoreError::Sql(rusqlite::Error::SqliteFailure(
            failure,
            _
        ))) if failure.code == rusqlite::ErrorCode::DiskFull
    );
    let kept = if strict {
        "nothing of it was kept (--strict)".to_owned()
    } else if committed == 0 {
        "nothing of it had been committed, so nothing of it is kept".to_owned()
    } else {
        format!(
            "the {} committed before it are kept, and importing the file again adds only the rest",
            traffic::summary::plural(committed, "view")
        )
    };
    if disk_full {
        CliError::failed(format!(
            "{}: disk full: {kept}; free some space and import again",
            path.display()
        ))
    } else if matches!(err, ImportError::Line { .. }) {
        CliError::failed(format!("{}: {err}", path.display()))
    } else {
        CliError::failed(format!("{}: {err}; {kept}", path.display()))
    }
}

/// Says what claiming the project for real views deleted (`--discard-demo`).
fn say_claimed(claimed: &Claimed, project: &str) {
    if claimed.discarded > 0 || claimed.discarded_signals > 0 {
        say!(
            "docdeck: deleted {} and {} invented searches, feedback and assistant questions of project {project} (the demo seed's); only real data is counted from now on",
            traffic::summary::plural(claimed.discarded, "invented view"),
            crate::text::thousands(claimed.discarded_signals),
        );
    }
}

/// Today's format, unchanged: each file in one transaction, a bad line fails it.
fn import_jsonl(importer: &mut Importer, args: &ImportArgs) -> Outcome {
    for path in &args.files {
        // All or nothing: a signal ends it with nothing kept, as before anything is written.
        let input = traffic::open(path, Arc::default()).map_err(|err| cannot_open(path, &err))?;
        let imported = importer
            .import_jsonl(input)
            .map_err(|err| CliError::failed(format!("{}: {err}", path.display())))?;
        let duplicates = match imported.duplicates {
            0 => String::new(),
            n => format!(
                " ({} stored before or repeated: not added again)",
                traffic::summary::plural(n, "duplicate")
            ),
        };
        // As a log's import ends: `project demo: 1,050 views added`.
        out!(
            "project {}: {} added{duplicates}",
            args.project,
            traffic::summary::plural(imported.stored, "view")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// A flag set by Ctrl-C or SIGTERM: the import then commits what it read and stops.
fn stop_on_signals() -> Result<Arc<AtomicBool>, CliError> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))
            .map_err(|err| CliError::failed(format!("cannot watch for Ctrl-C: {err}")))?;
    }
    Ok(stop)
}

fn follow_files(importer: &mut Importer, args: &ImportArgs) -> Outcome {
    let stop = stop_on_signals()?;
    say!(
        "docdeck: following {} into project {}; Ctrl-C stops (what was read is kept)",
        args.files
            .iter()
            .map(|path| path.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        args.project
    );
    let progress = importer.progress();
    let ticker = super::progress::Ticker::start(&progress);
    let mut note = |text: String| ticker.suspend(|| say!("docdeck: {text}"));
    let summary = importer
        .follow(&args.files, &stop, &mut note)
        .map_err(|err| match err {
            // Earlier commits stay: say so rather than "nothing was imported".
            ImportError::Line { line, reason } => CliError::failed(format!(
                "{} line {line}: {reason}; stopped there (--strict): what was committed before is kept, the lines read since the last commit are not",
                importer.source().unwrap_or("input")
            )),
            other => CliError::failed(other.to_string()),
        })?;
    ticker.finish();
    // A fresh line after the ^C the terminal echoed.
    if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        out!("");
    }
    out!("stopped: {summary}");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::db::StoreError;

    fn full_disk() -> ImportError {
        ImportError::Store(StoreError::Sql(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
            None,
        )))
    }

    #[test]
    fn a_full_disk_says_so_and_what_was_kept() {
        let path = Path::new("access.log");
        assert_eq!(
            stopped(path, &full_disk(), 12_345, false).message,
            "access.log: disk full: the 12,345 views committed before it are kept, and importing the file again adds only the rest; free some space and import again"
        );
        assert_eq!(
            stopped(path, &full_disk(), 0, false).message,
            "access.log: disk full: nothing of it had been committed, so nothing of it is kept; free some space and import again"
        );
        assert_eq!(
            stopped(path, &full_disk(), 12_345, true).message,
            "access.log: disk full: nothing of it was kept (--strict); free some space and import again"
        );
    }
}
