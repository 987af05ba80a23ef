//! The sections of docdeck(1) after the commands that clap does not write: the console's
//! keys (from the same tables that dispatch them and write `?`), EXIT STATUS,
//! ENVIRONMENT and FILES.

use clap_mangen::roff::{Roff, bold, roman};

use crate::tui::keymap::{self, Binding};

/// What the codes of the jobs and visitors commands (and `doctor`) mean.
const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "success (with --wait: the job completed)"),
    (
        "1",
        "the service, the network or a local file failed (one line on standard error says what to do); for doctor, a check failed",
    ),
    ("2", "usage or configuration error (nothing was sent)"),
    ("3", "the waited-for job failed"),
    ("4", "the waited-for job was archived"),
    (
        "5",
        "--wait --timeout ran out before the job ended (the job continues on the service)",
    ),
    (
        "130, 143, 129",
        "stopped by Ctrl+C, SIGTERM or SIGHUP (a wait, or serve), as a shell reports a process those end",
    ),
];

const ENVIRONMENT: &[(&str, &str)] = &[
    ("DOCDECK_PROFILE", "the profile of config.toml (--profile)"),
    (
        "DOCDECK_BASE_URL",
        "the service's base URL (--base-url; default https://api.mintlify.com)",
    ),
    ("DOCDECK_PROJECT_ID", "the project id (--project)"),
    (
        "DOCDECK_API_KEY",
        "the admin API key (--api-key; api_key_command in config.toml keeps it out of the environment)",
    ),
    (
        "DOCDECK_POLL_INTERVAL",
        "how often active jobs are read (--poll-interval; at least 500ms, default 3s)",
    ),
    (
        "DOCDECK_NOTIFY",
        "off, bell or desktop: what the console does when a job ends (--notify)",
    ),
    ("DOCDECK_CONFIG", "the config file (--config)"),
    (
        "DOCDECK_LOG",
        "a log filter (debug, docdeck=debug,info); logs go to docdeck.log in the data folder only when it is set",
    ),
    ("NO_COLOR", "set: the console draws without colour"),
    ("EDITOR, VISUAL", "the editor of Ctrl+E in the composer"),
    (
        "GITHUB_TOKEN, DOCDECK_GITHUB_API_URL",
        "serve --forge github: the token that opens pull requests, and the API it talks to; jobs impact: the token that reads a pull request's merge time",
    ),
    (
        "DOCDECK_PROMPT, DOCDECK_PROMPT_FILE, DOCDECK_JOB_ID, DOCDECK_TURN",
        "given to serve's agent command (and DOCDECK_JOB_STATUS, DOCDECK_PR_LINK to notify_command): the prompt is on standard input and in the file always, in DOCDECK_PROMPT only under 100 KiB",
    ),
];

const FILES: &[(&str, &str)] = &[
    (
        "$XDG_CONFIG_HOME/docdeck/config.toml",
        "profiles, keys, theme, templates, notify_command (usually ~/.config/docdeck)",
    ),
    (
        "$XDG_DATA_HOME/docdeck/docdeck.sqlite",
        "the journal shared by the console and the CLI: tracked jobs, prompts sent, status timelines, drafts, filters, rate budgets (usually ~/.local/share/docdeck); never the key",
    ),
    (
        "$XDG_DATA_HOME/docdeck/docdeck.log",
        "the log, when DOCDECK_LOG is set",
    ),
    (
        "$XDG_DATA_HOME/docdeck/service.sqlite",
        "serve's database (jobs, turns, keys as hashes, views) unless --db says otherwise",
    ),
    (
        "$XDG_DATA_HOME/docdeck/agent/<hash of --repo>/",
        "serve's real agent: clones, worktrees/<job>, output/<job>/turn-<n>.log, prompts/<job>/",
    ),
];

/// The console's keys, place by place, as `?` shows them.
const KEY_TABLES: &[(&str, &[Binding])] = &[
    (
        "Everywhere (where text is typed, only keys that type none)",
        keymap::GLOBAL,
    ),
    ("Jobs", keymap::JOBS),
    ("Job detail", keymap::DETAIL),
    ("Composer", keymap::COMPOSER),
    ("Visitors", keymap::VISITORS),
    ("Forms", keymap::FORM),
];

/// Writes the sections, in the order man pages put them.
pub(crate) fn write(page: &mut Vec<u8>) -> std::io::Result<()> {
    let mut roff = Roff::new();
    roff.control("SH", ["CONSOLE KEYS"]).text([roman(
        "The defaults; [keys.<context>] in config.toml changes them, and ? in the console lists those in force.",
    )]);
    for (place, bindings) in KEY_TABLES {
        roff.control("SS", [*place]);
        for binding in *bindings {
            roff.control("TP", [])
                .text([bold(ascii(binding.label))])
                .text([roman(ascii(binding.help))]);
        }
    }
    for (heading, entries) in [
        ("EXIT STATUS", EXIT_STATUS),
        ("ENVIRONMENT", ENVIRONMENT),
        ("FILES", FILES),
    ] {
        roff.control("SH", [heading]);
        for (name, meaning) in entries {
            roff.control("TP", [])
                .text([bold(*name)])
                .text([roman(*meaning)]);
        }
    }
    roff.to_writer(page)
}

/// The arrows of the help's key labels in words: troff reads its input as Latin-1 and
/// warns at anything else.
fn ascii(text: &str) -> String {
    text.replace('↑', "Up")
        .replace('↓', "Down")
        .replace('←', "Left")
        .replace('→', "Right")
}
