//! Handing a prompt to a program the person chose (the agent command of `docdeck serve`,
//! the console's `notify_command`): on standard input, as a file, and in an environment
//! variable only when it fits; and, when the program cannot start, words for what failed.

use std::io;

/// Kills the whole process group that `leader` started (as `process_group(0)` makes
/// it): what the program started (a `sleep`, a `curl`, the agent's tools) goes too. Used
/// by the console's `notify_command` and by the agent of `docdeck serve`.
#[cfg(unix)]
pub fn kill_group(leader: u32) {
    let pid = i32::try_from(leader)
        .ok()
        .and_then(rustix::process::Pid::from_raw);
    if let Some(pid) = pid {
        // Fails only when the group is already gone.
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// Elsewhere there are no process groups to kill.
#[cfg(not(unix))]
pub fn kill_group(_leader: u32) {}

/// The largest prompt also put in `DOCDECK_PROMPT`. Linux holds one environment string
/// to 128 KiB (and all of them, with the arguments, to a quarter of the stack limit):
/// past that the program does not start at all ("Argument list too long"). A larger
/// prompt is read from standard input or from `DOCDECK_PROMPT_FILE`.
pub const PROMPT_ENV_LIMIT: usize = 100 * 1024;

/// `DOCDECK_PROMPT` with `prompt`, when it fits in one variable; else nothing, and the
/// program reads the prompt from standard input or `DOCDECK_PROMPT_FILE`.
#[must_use]
pub fn prompt_variable(prompt: &str) -> Option<(String, String)> {
    (prompt.len() < PROMPT_ENV_LIMIT)
        .then(|| ("DOCDECK_PROMPT".to_owned(), prompt.replace('\0', "")))
}

/// What failed when `program` could not be started, in words: not found, not
/// executable, or too much in its environment, rather than one guess for all.
#[must_use]
pub fn why_not_started(program: &str, err: &io::Error) -> String {
    // E2BIG: the arguments and environment together are past the system's limit.
    const TOO_BIG: i32 = 7;
    match err.kind() {
        io::ErrorKind::NotFound if program.contains('/') => {
            format!("{program:?} does not exist ({err})")
        }
        io::ErrorKind::NotFound => {
            format!("{program:?} was not found on PATH ({err}): install it, or give its whole path")
        }
        io::ErrorKind::PermissionDenied => {
            format!(
                "{program:?} may not be run: it is not executable, or a folder on its way is not readable ({err})"
            )
        }
        _ if err.raw_os_error() == Some(TOO_BIG) => format!(
            "{program:?} could not start: its arguments and environment are larger than the system allows ({err})"
        ),
        _ => format!("{program:?} could not start ({err})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_prompt_that_fits_goes_in_the_variable() {
        assert!(prompt_variable("fix the typo").is_some());
        assert!(prompt_variable(&"x".repeat(200 * 1024)).is_none());
    }

    #[test]
    fn each_failure_to_start_says_what_failed() {
        let missing = why_not_started("agent", &io::Error::from(io::ErrorKind::NotFound));
        assert!(missing.contains("not found on PATH"), "{missing}");
        let denied = why_not_started(
            "/x/agent",
            &io::Error::from(io::ErrorKind::PermissionDenied),
        );
        assert!(denied.contains("not executable"), "{denied}");
        let big = why_not_started("/x/agent", &io::Error::from_raw_os_error(7));
        assert!(big.contains("larger than the system allows"), "{big}");
        assert!(!big.contains("PATH"), "{big}");
    }
}
