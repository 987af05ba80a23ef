//! The service's keys on the command line: where `serve` reads the key it is given (the
//! environment, a private file, or `--api-key` with a warning), and `docdeck serve keys
//! list|add|revoke`, which manage the keys stored in a service database.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::store_arg::{db_location, wrap};
use super::{CliError, Outcome};
use crate::config::Secret;
use crate::server::db::{Db, DbLocation, StoreError, now_ms};
use crate::server::keys::{self, KeyHasher, KeyRow};
use crate::server::pg::PgStore;
use crate::server::store::Sql;

/// The variable `serve` and `serve keys add` read a key from.
pub const KEY_VARIABLE: &str = "DOCDECK_SERVE_API_KEY";

/// Where a key may come from, as flags.
#[derive(Debug, Clone, Args)]
pub struct KeySourceArgs {
    /// File holding the API key (its first line), readable by you only (chmod 600 FILE).
    /// The environment variable DOCDECK_SERVE_API_KEY may hold it instead
    #[arg(long, value_name = "FILE")]
    pub api_key_file: Option<PathBuf>,
    /// The API key itself. Other users of this machine can read it in the process list
    /// (ps): prefer DOCDECK_SERVE_API_KEY or --api-key-file
    #[arg(long, value_name = "KEY")]
    pub api_key: Option<String>,
}

impl KeySourceArgs {
    /// The key given, if one was, with the warnings it deserves said on standard error.
    pub fn key(&self) -> Result<Option<Secret>, CliError> {
        let from_env = std::env::var(KEY_VARIABLE).ok().filter(|v| !v.is_empty());
        let given = [
            from_env.is_some(),
            self.api_key_file.is_some(),
            self.api_key.is_some(),
        ];
        if given.iter().filter(|g| **g).count() > 1 {
            return Err(CliError::usage(format!(
                "give the key one way only: {KEY_VARIABLE}, --api-key-file or --api-key"
            )));
        }
        let key = if let Some(path) = &self.api_key_file {
            read_key_file(path)?
        } else if let Some(key) = &self.api_key {
            say!(
                "{}",
                wrap(&format!(
                    "docdeck: warning: --api-key puts the key where other users of this machine can read it (ps); set {KEY_VARIABLE} or use --api-key-file instead"
                ))
            );
            key.trim().to_owned()
        } else if let Some(key) = from_env {
            key.trim().to_owned()
        } else {
            return Ok(None);
        };
        if key.is_empty() || key.chars().any(char::is_whitespace) {
            return Err(CliError::usage(
                "the API key given is empty or has spaces in it: give one word, such as a key from `docdeck serve keys add`",
            ));
        }
        if keys::is_short(&key) {
            say!(
                "{}",
                wrap(&format!(
                    "docdeck: warning: the API key given is {} characters long; a key shorter than {} random characters can be guessed: make one with `docdeck serve keys add`",
                    key.chars().count(),
                    keys::MIN_KEY_CHARS
                ))
            );
        }
        Ok(Some(Secret::new(key)))
    }
}

/// The first line of a key file that only its owner can read.
fn read_key_file(path: &Path) -> Result<String, CliError> {
    let shown = path.display();
    let metadata = std::fs::metadata(path)
        .map_err(|err| CliError::usage(format!("cannot read --api-key-file {shown}: {err}")))?;
    if !is_key_source(&metadata.file_type()) {
        // A device (such as /dev/null) or a folder: its mode says nothing of who can read
        // a key, and it holds none.
        return Err(CliError::usage(format!(
            "--api-key-file {shown} is not a regular file: give the file the key is in (or a pipe, such as <(pass show docdeck))"
        )));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = metadata.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(CliError::usage(format!(
                "--api-key-file {shown} can be read by other users (mode {mode:o}): run `chmod 600 {shown}` and start again"
            )));
        }
    }
    #[cfg(not(unix))]
    let _ = metadata;
    let text = std::fs::read_to_string(path)
        .map_err(|err| CliError::usage(format!("cannot read --api-key-file {shown}: {err}")))?;
    Ok(text.lines().next().unwrap_or_default().trim().to_owned())
}

/// A regular file, or on Unix a pipe (`<(pass show docdeck)`): what a key can be read from.
fn is_key_source(kind: &std::fs::FileType) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        kind.is_file() || kind.is_fifo()
    }
    #[cfg(not(unix))]
    {
        kind.is_file()
    }
}

/// `docdeck serve keys ...`.
#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// List the stored keys: id, prefix, project, when made, last used and revoked (never
    /// the key itself).
    List(KeysDbArgs),
    /// Store a key for a project: the one given by DOCDECK_SERVE_API_KEY or --api-key-file,
    /// else a new one, printed once on standard output.
    Add(AddArgs),
    /// Revoke a key by its id or prefix (as `keys list` shows them). A running service
    /// refuses it from its next request on.
    Revoke(RevokeArgs),
}

#[derive(Debug, Args)]
pub struct KeysDbArgs {
    /// Service database file [default: service.sqlite in the data folder]
    #[arg(long, value_name = "PATH")]
    pub db: Option<String>,
}

#[derive(Debug, Args)]
pub struct AddArgs {
    #[command(flatten)]
    pub db: KeysDbArgs,
    /// Project the key is for
    #[arg(long, value_name = "ID", default_value = "demo")]
    pub project: String,
    #[command(flatten)]
    pub key: KeySourceArgs,
}

#[derive(Debug, Args)]
pub struct RevokeArgs {
    #[command(flatten)]
    pub db: KeysDbArgs,
    /// The key's id or prefix
    #[arg(value_name = "ID|PREFIX")]
    pub which: String,
}

/// The service's database the keys are in: a SQLite file, or PostgreSQL shared by nodes
/// (which read keys live: a key added or revoked here counts at their next request).
enum KeysDb {
    Lite(Db),
    Pg(PgStore),
}

impl KeysDb {
    fn open(args: &KeysDbArgs) -> Result<Self, CliError> {
        let failed = |err: StoreError| CliError::failed(err.to_string());
        match db_location(args.db.as_deref())? {
            // The synchronous client runs a runtime of its own: not on this one's thread.
            DbLocation::Postgres(url) => {
                std::thread::scope(|s| s.spawn(|| PgStore::open(&url)).join())
                    .map_err(|_| CliError::failed("opening PostgreSQL failed"))?
                    .map(Self::Pg)
                    .map_err(failed)
            }
            other => Db::open(&other).map(Self::Lite).map_err(failed),
        }
    }

    /// Runs `work` on the database, off the async runtime's thread.
    fn blocking<T: Send>(
        &self,
        work: impl FnOnce(&mut dyn Sql) -> Result<T, StoreError> + Send,
    ) -> Result<T, StoreError> {
        match self {
            Self::Lite(db) => db.blocking(|conn| work(conn)),
            Self::Pg(pg) => std::thread::scope(|s| {
                s.spawn(|| pg.blocking(|client| work(client)))
                    .join()
                    .unwrap_or_else(|_| Err(StoreError::Task("the keys' work panicked".into())))
            }),
        }
    }
}

pub fn run(command: KeysCommand) -> Outcome {
    let open = KeysDb::open;
    let failed = |err: keys::KeyError| CliError::failed(err.to_string());
    let mut stdout = std::io::stdout();
    match command {
        KeysCommand::List(args) => {
            let rows = open(&args)?
                .blocking(|conn| keys::list(conn))
                .map_err(|err| CliError::failed(err.to_string()))?;
            let _ = write!(stdout, "{}", table(&rows));
        }
        KeysCommand::Add(args) => {
            if args.project.is_empty() {
                return Err(CliError::usage("--project must not be empty"));
            }
            let given = args.key.key()?;
            let key = given.clone().unwrap_or_else(keys::generate);
            let db = open(&args.db)?;
            let registered = db
                .blocking(|conn| {
                    let hasher = KeyHasher::load(conn)?;
                    Ok(keys::register(conn, &hasher, &args.project, &key, now_ms()))
                })
                .map_err(|err| CliError::failed(err.to_string()))?
                .map_err(failed)?;
            let (keys::Registered::Added { id } | keys::Registered::AlreadyThere { id }) =
                registered;
            if given.is_none() {
                let _ = writeln!(stdout, "{}", key.expose());
            }
            say!(
                "docdeck: key {id} ({}…) is {} for project {}{}",
                crate::text::sanitize(&keys::prefix(key.expose())),
                if matches!(registered, keys::Registered::Added { .. }) {
                    "stored"
                } else {
                    "already stored"
                },
                args.project,
                if given.is_none() {
                    "; it is shown this once"
                } else {
                    ""
                }
            );
        }
        KeysCommand::Revoke(args) => {
            let row = open(&args.db)?
                .blocking(|conn| Ok(keys::revoke(conn, &args.which, now_ms())))
                .map_err(|err| CliError::failed(err.to_string()))?
                .map_err(failed)?;
            let _ = writeln!(
                stdout,
                "revoked key {} ({}) of project {}: a running service refuses it from its next request",
                row.id,
                row.prefix
                    .as_deref()
                    .map_or_else(|| "no prefix kept".to_owned(), crate::text::sanitize),
                row.project
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The keys as an aligned table.
fn table(rows: &[KeyRow]) -> String {
    let time = |ms: Option<i64>| {
        ms.and_then(chrono::DateTime::from_timestamp_millis)
            .map_or_else(
                || "-".to_owned(),
                |t| t.format("%Y-%m-%d %H:%M UTC").to_string(),
            )
    };
    let mut lines = vec![[
        "ID".to_owned(),
        "PREFIX".to_owned(),
        "PROJECT".to_owned(),
        "CREATED".to_owned(),
        "LAST USED".to_owned(),
        "REVOKED".to_owned(),
    ]];
    for row in rows {
        lines.push([
            row.id.to_string(),
            row.prefix.as_ref().map_or_else(
                || "(not kept)".to_owned(),
                |p| format!("{}…", crate::text::sanitize(p)),
            ),
            crate::text::excerpt(&row.project, 40),
            time(Some(row.created_ms)),
            time(row.last_used_ms),
            time(row.revoked_ms),
        ]);
    }
    let widths: Vec<usize> = (0..6)
        .map(|i| {
            lines
                .iter()
                .map(|l| l[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for line in &lines {
        let cells: Vec<String> = line
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_key_file_that_is_no_regular_file_is_said_to_be_none() {
        for path in ["/dev/null", "/"] {
            let err = read_key_file(Path::new(path)).unwrap_err().message;
            assert!(err.contains("is not a regular file"), "{path}: {err}");
            assert!(!err.contains("chmod"), "{path}: {err}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_key_file_only_its_owner_reads_gives_its_first_line() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key");
        std::fs::write(&path, "  secret-key \nmore\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(read_key_file(&path).unwrap(), "secret-key");
    }
}
