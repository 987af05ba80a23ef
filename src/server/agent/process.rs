//! Runs the agent command of one turn: in its own process group, with an emptied
//! environment, the prompt on standard input, a time limit, and its output kept.
//!
//! The group is what makes the limit real: an agent that starts helpers (a shell, a
//! language server, `sleep` in a script) leaves them behind when only it is killed. The
//! whole group is killed at the limit, when the agent exits (what it left running is not
//! its work any more), and when the turn is dropped (service shutdown).

use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::AsyncWriteExt as _;
use tokio::sync::mpsc;

use super::output::{self, Kept};
use crate::launch::kill_group;

/// One run of the agent command.
pub struct Invocation<'a> {
    /// The program and its arguments, already split.
    pub argv: &'a [String],
    pub dir: &'a Path,
    /// The whole environment of the agent: nothing else is inherited.
    pub env: Vec<(String, String)>,
    pub stdin: &'a [u8],
    pub timeout: Duration,
    pub output: &'a Path,
    /// Where the run's process group is noted while it runs, so that a service killed
    /// before it could end the group ends it at its next start.
    pub record: Option<&'a Path>,
    /// The command is `docdeck agent-exec`, which on SIGTERM ends the agent, its group
    /// and the helpers that left the group: it is asked first, and the group killed after.
    pub launcher: bool,
}

/// How a run ended.
#[derive(Debug)]
pub enum Exit {
    Exited(ExitStatus),
    TimedOut,
}

/// A finished run.
#[derive(Debug)]
pub struct Ran {
    pub exit: Exit,
    pub kept: Option<Kept>,
}

/// How long the launcher has to end what the agent started before its group is killed.
const GRACE: Duration = Duration::from_secs(2);

/// Kills a process group when dropped, unless it was already killed.
struct Group {
    leader: Option<u32>,
    launcher: bool,
}

impl Group {
    fn kill(&mut self) {
        if let Some(pid) = self.leader.take() {
            kill_group(pid);
        }
    }

    /// Ends the group: through the launcher when there is one (it also ends the helpers
    /// that left the group, which a group kill misses), then the group outright.
    async fn end(&mut self, child: &mut tokio::process::Child) {
        if let (true, Some(pid)) = (self.launcher, self.leader) {
            terminate(pid);
            let _ = tokio::time::timeout(GRACE, child.wait()).await;
        }
        self.kill();
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        match (self.launcher, self.leader.take()) {
            (true, Some(pid)) => {
                terminate(pid);
                // Nothing may wait here (a turn dropped at shutdown): the group is killed
                // after the launcher's grace from a thread of its own.
                std::thread::spawn(move || {
                    std::thread::sleep(GRACE);
                    kill_group(pid);
                });
            }
            (false, Some(pid)) => kill_group(pid),
            (_, None) => {}
        }
    }
}

#[cfg(unix)]
fn terminate(pid: u32) {
    let pid = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw);
    if let Some(pid) = pid {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
    }
}

#[cfg(not(unix))]
fn terminate(_pid: u32) {}

/// Whether `program` names an executable file: as a path when it has a `/`, else found
/// on `PATH` as the agent will look it up.
pub fn runnable(program: &str) -> bool {
    let executable = |path: &Path| {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            path.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        }
        #[cfg(not(unix))]
        {
            path.is_file()
        }
    };
    if program.contains('/') {
        return executable(Path::new(program));
    }
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|dir| executable(&dir.join(program)))
    })
}

/// Runs `invocation` to its end or its time limit. An error means it could not start.
pub async fn run(invocation: Invocation<'_>) -> Result<Ran, String> {
    let (program, args) = invocation
        .argv
        .split_first()
        .ok_or_else(|| "the agent command is empty".to_owned())?;
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .current_dir(invocation.dir)
        .env_clear()
        .envs(invocation.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    let mut child = command.spawn().map_err(|err| {
        format!(
            "cannot start the agent command: {}",
            crate::launch::why_not_started(program, &err)
        )
    })?;
    let mut group = Group {
        leader: child.id(),
        launcher: invocation.launcher,
    };
    if let (Some(record), Some(pid)) = (invocation.record, child.id()) {
        super::orphans::note(record, pid);
    }

    let (sender, receiver) = mpsc::channel(64);
    let mut pumps = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        pumps.push(tokio::spawn(output::pump(stdout, sender.clone())));
    }
    if let Some(stderr) = child.stderr.take() {
        pumps.push(tokio::spawn(output::pump(stderr, sender.clone())));
    }
    drop(sender);
    let path = invocation.output.to_path_buf();
    let collector =
        tokio::spawn(async move { output::collect(&path, receiver, output::OUTPUT_LIMIT).await });
    let feeder = child.stdin.take().map(|mut stdin| {
        let prompt = invocation.stdin.to_vec();
        // An agent that does not read its standard input closes it: not an error.
        tokio::spawn(async move {
            let _ = stdin.write_all(&prompt).await;
            let _ = stdin.shutdown().await;
        })
    });

    let exit = match tokio::time::timeout(invocation.timeout, child.wait()).await {
        Ok(Ok(status)) => Exit::Exited(status),
        Ok(Err(err)) => {
            group.kill();
            invocation.record.map(super::orphans::forget);
            return Err(format!("cannot wait for the agent command: {err}"));
        }
        Err(_) => {
            group.end(&mut child).await;
            Exit::TimedOut
        }
    };
    group.kill();
    invocation.record.map(super::orphans::forget);
    let _ = child.wait().await;
    if let Some(feeder) = feeder {
        feeder.abort();
    }
    // Every process of the group is gone, so the pipes end; one that left the group
    // (setsid) may hold them open, and is not waited for.
    let drained = tokio::time::timeout(Duration::from_secs(5), async {
        for pump in &mut pumps {
            let _ = pump.await;
        }
    })
    .await;
    if drained.is_err() {
        for pump in &pumps {
            pump.abort();
        }
    }
    let kept = match collector.await {
        Ok(Ok(kept)) => Some(kept),
        Ok(Err(err)) => {
            tracing::warn!("cannot keep the agent's output: {err}");
            None
        }
        Err(_) => None,
    };
    Ok(Ran { exit, kept })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str) -> Vec<String> {
        vec!["/bin/sh".into(), "-c".into(), script.into()]
    }

    fn path_env() -> Vec<(String, String)> {
        vec![("PATH".into(), std::env::var("PATH").unwrap_or_default())]
    }

    #[tokio::test]
    async fn the_prompt_arrives_on_stdin_and_output_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("out.log");
        let argv = sh("read line; echo \"got $line\"; echo oops >&2; exit 3");
        let ran = run(Invocation {
            argv: &argv,
            dir: dir.path(),
            env: path_env(),
            stdin: b"fix the typo\n",
            timeout: Duration::from_secs(20),
            output: &log,
            record: None,
            launcher: false,
        })
        .await
        .unwrap();
        let Exit::Exited(status) = ran.exit else {
            panic!("{:?}", ran.exit)
        };
        assert_eq!(status.code(), Some(3));
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(text.contains("got fix the typo"), "{text}");
        assert!(text.contains("oops"), "{text}");
    }

    #[tokio::test]
    async fn a_program_that_does_not_exist_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let argv = vec!["docdeck-no-such-agent".to_owned()];
        let err = run(Invocation {
            argv: &argv,
            dir: dir.path(),
            env: path_env(),
            stdin: b"",
            timeout: Duration::from_secs(5),
            output: &dir.path().join("out.log"),
            record: None,
            launcher: false,
        })
        .await
        .unwrap_err();
        assert!(err.contains("cannot start the agent command"), "{err}");
    }
}
