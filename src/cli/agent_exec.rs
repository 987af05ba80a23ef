//! `docdeck agent-exec -- CMD ARGS...` (hidden): what `docdeck serve` runs its real agent
//! through on Linux, so that the agent dies with the service, even with `kill -9`. It asks
//! the kernel for SIGTERM when the service goes (`PR_SET_PDEATHSIG`, set on itself: the
//! crate has no `unsafe` for a `pre_exec` in the service), runs CMD as its child in the
//! same process group (the service made it the group's leader), and on that signal kills
//! the whole group: the agent and everything it started. Otherwise it exits as CMD did.

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
    let mut child = std::process::Command::new(program)
        .args(rest)
        .spawn()
        .map_err(|err| {
            CliError::failed(format!("cannot start the agent command {program:?}: {err}"))
        })?;
    loop {
        if stop.load(Ordering::Relaxed) {
            kill_own_group();
            return Ok(ExitCode::from(143));
        }
        match child.try_wait() {
            Ok(Some(status)) => return Ok(exit_code(status)),
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
