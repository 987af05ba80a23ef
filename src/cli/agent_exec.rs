//! `docdeck agent-exec -- CMD ARGS...` (hidden): what `docdeck serve` runs its real agent
//! through on Linux, so that the agent dies with the service, even with `kill -9`. It asks
//! the kernel for SIGTERM when the service goes (`PR_SET_PDEATHSIG`, set on itself: the
//! crate has no `unsafe` for a `pre_exec` in the service), runs CMD as its child in the
//! same process group (the service made it the group's leader), and on that signal kills
//! the whole group: the agent and everything it started. Otherwise it exits as CMD did,
//! after ending what CMD left running.
//!
//! A helper that left the group (`setsid`, a daemon) would escape a group kill, so it
//! also makes itself the child subreaper of what it runs (`PR_SET_CHILD_SUBREAPER`): an
//! orphaned descendant becomes its child instead of init's, and is ended with the group.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::Args;

use super::{CliError, Outcome};

#[derive(Debug, Args)]
pub struct AgentExecArgs {
    /// The agent command and its arguments
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
    pub command: Vec<String>,
}

pub fn run(args: &AgentExecArgs) -> Outcome {
    let (program, rest) = args
        .command
        .split_first()
        .ok_or_else(|| CliError::usage("agent-exec needs a command"))?;
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
        signal_hook::consts::SIGINT,
    ] {
        signal_hook::flag::register(signal, Arc::clone(&stop))
            .map_err(|err| CliError::failed(format!("cannot handle signals: {err}")))?;
    }
    die_with_parent()?;
    adopt_orphans();
    let mut child = std::process::Command::new(program)
        .args(rest)
        .spawn()
        .map_err(|err| {
            CliError::failed(format!("cannot start the agent command {program:?}: {err}"))
        })?;
    loop {
        if stop.load(Ordering::Relaxed) {
            end_the_rest();
            return Ok(ExitCode::from(143));
        }
        match child.try_wait() {
            Ok(Some(status)) => {
                end_the_rest();
                return Ok(exit_code(status));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(err) => {
                kill_own_group();
                return Err(CliError::failed(format!(
                    "cannot wait for the agent: {err}"
                )));
            }
        }
    }
}

/// SIGTERM when the parent (the service) ends; ends at once if it already has.
#[cfg(target_os = "linux")]
fn die_with_parent() -> Result<(), CliError> {
    use rustix::process::{Signal, getppid, set_parent_process_death_signal};
    let parent = getppid();
    set_parent_process_death_signal(Some(Signal::TERM))
        .map_err(|err| CliError::failed(format!("cannot tie the agent to the service: {err}")))?;
    // The service may have gone between our start and the request: then no signal comes.
    if getppid() != parent {
        kill_own_group();
        return Err(CliError::failed(
            "the service stopped before the agent started",
        ));
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn die_with_parent() -> Result<(), CliError> {
    Ok(())
}

/// Makes the processes the agent starts and then leaves (their parent gone) this
/// process's children, so that [`end_the_rest`] finds them even outside the group.
#[cfg(target_os = "linux")]
fn adopt_orphans() {
    // Without it (an old kernel), a helper that left the group outlives the turn, as it
    // did before: not a reason to refuse to run the agent.
    let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
}

#[cfg(not(target_os = "linux"))]
fn adopt_orphans() {}

/// Ends every process of this group but this one, and every process that is this one's
/// child (orphans adopted as their subreaper, whatever their group), and reaps them.
/// Killing a process makes its own children orphans, adopted in turn: so it goes on
/// until none is left (or, bounded, after many rounds).
#[cfg(target_os = "linux")]
fn end_the_rest() {
    use rustix::process::{Pid, Signal, WaitOptions, getpgrp, getpid, kill_process, waitpid};
    let (me, group) = (
        getpid().as_raw_nonzero().get(),
        getpgrp().as_raw_nonzero().get(),
    );
    for _ in 0..200 {
        while let Ok(Some(_)) = waitpid(None, WaitOptions::NOHANG) {}
        let left = processes_of(me, group);
        if left.is_empty() {
            return;
        }
        for pid in left.into_iter().filter_map(Pid::from_raw) {
            let _ = kill_process(pid, Signal::KILL);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    kill_own_group();
}

#[cfg(not(target_os = "linux"))]
fn end_the_rest() {
    kill_own_group();
}

/// The live processes (zombies aside) that are children of `me` or in `group`, but `me`.
#[cfg(target_os = "linux")]
fn processes_of(me: i32, group: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| *pid != me)
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            // After the command's name, in parentheses: state, parent, group.
            let mut fields = stat.rsplit(')').next().unwrap_or("").split_whitespace();
            let state = fields.next().unwrap_or("Z");
            let parent = fields.next().and_then(|f| f.parse::<i32>().ok());
            let pgrp = fields.next().and_then(|f| f.parse::<i32>().ok());
            state != "Z" && (parent == Some(me) || pgrp == Some(group))
        })
        .collect()
}

/// Kills this process's group: the agent, what it started, and this process.
fn kill_own_group() {
    #[cfg(unix)]
    {
        let group = rustix::process::getpgrp();
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
}

/// The agent's exit status, or 128 + the signal that ended it, as a shell reports it.
fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    #[cfg(unix)]
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
        return ExitCode::from(u8::try_from(128 + signal).unwrap_or(255));
    }
    ExitCode::from(
        status
            .code()
            .and_then(|c| u8::try_from(c).ok())
            .unwrap_or(1),
    )
}
