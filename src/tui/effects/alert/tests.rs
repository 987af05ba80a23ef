//! `notify_command` run for real: a small script under a temporary folder.
#![cfg(unix)]

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use super::*;
use crate::tui::message::AlertCommand;

/// A script in `dir` with `body` after the shebang, executable.
fn script(dir: &Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt as _;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

fn alert(argv: Vec<String>, limit: Duration) -> Alert {
    Alert {
        command: AlertCommand { argv, limit },
        job_id: "job_42".into(),
        status: "completed".into(),
        pr_link: Some("https://github.com/o/r/pull/7".into()),
        prompt: Some("Fix the links; then $(rm -rf ~) `x`\nsecond line".into()),
    }
}

/// The console's environment as the tests give it: a key beside the usual variables.
fn console_env(name: &str) -> Option<String> {
    match name {
        "PATH" => Some("/usr/bin:/bin".into()),
        "HOME" => Some("/home/someone".into()),
        "DOCDECK_API_KEY" => Some("mint_secret_key".into()),
        _ => None,
    }
}

/// `KEY=value` lines of `env -0` output.
fn parse_env(bytes: &[u8]) -> HashMap<String, String> {
    bytes
        .split(|b| *b == 0)
        .filter(|entry| !entry.is_empty())
        .filter_map(|entry| {
            let text = String::from_utf8_lossy(entry);
            let (key, value) = text.split_once('=')?;
            Some((key.to_owned(), value.to_owned()))
        })
        .collect()
}

#[tokio::test]
async fn the_command_gets_the_job_in_its_environment_and_never_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("env.out");
    let program = script(dir.path(), "alert.sh", "exec /usr/bin/env -0 > \"$1\"");
    let argv = vec![program, out.display().to_string()];
    run(alert(argv, Duration::from_secs(10)), &console_env)
        .await
        .unwrap();
    let env = parse_env(&std::fs::read(&out).unwrap());
    assert_eq!(env["DOCDECK_JOB_ID"], "job_42");
    assert_eq!(env["DOCDECK_JOB_STATUS"], "completed");
    assert_eq!(env["DOCDECK_PR_LINK"], "https://github.com/o/r/pull/7");
    assert_eq!(
        env["DOCDECK_PROMPT"],
        "Fix the links; then $(rm -rf ~) `x`\nsecond line"
    );
    assert_eq!(env["PATH"], "/usr/bin:/bin");
    assert!(!env.contains_key("DOCDECK_API_KEY"), "{env:?}");
    let allowed: Vec<&str> = PASSED_ON.into_iter().collect();
    for name in env.keys() {
        assert!(
            name.starts_with("DOCDECK_") || allowed.contains(&name.as_str()) || name == "PWD",
            "{name} reached the command"
        );
    }
    assert!(
        env.values().all(|value| !value.contains("mint_secret_key")),
        "{env:?}"
    );
}

#[tokio::test]
async fn a_command_that_hangs_is_killed_with_what_it_started() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("helper.pid");
    // The helper it leaves behind would outlive the command if only it were killed.
    let body = format!("sleep 60 &\necho $! > '{}'\nwait", pid_file.display());
    let program = script(dir.path(), "hang.sh", &body);
    let started = Instant::now();
    let limit = Duration::from_millis(300);
    let result = run(alert(vec![program], limit), &console_env).await;
    assert!(
        matches!(&result, Err(AlertError::TimedOut { .. })),
        "{result:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let message = result.unwrap_err().to_string();
    assert!(message.contains("ran longer than 0.3s"), "{message}");
    let helper: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // The group was killed: the helper is gone (or a zombie of init, never running).
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let state = std::fs::read_to_string(format!("/proc/{helper}/stat")).unwrap_or_default();
        let running = state
            .rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z') && !rest.is_empty());
        if !running {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "helper {helper} still runs: {state}"
        );
        tokio::task::yield_now().await;
    }
}

#[tokio::test]
async fn failures_say_what_to_check() {
    let dir = tempfile::tempdir().unwrap();
    let failing = script(dir.path(), "fail.sh", "exit 3");
    let err = run(alert(vec![failing], Duration::from_secs(10)), &console_env)
        .await
        .unwrap_err();
    assert!(matches!(err, AlertError::Exited { code: 3, .. }), "{err:?}");
    assert!(err.to_string().contains("run it by hand"), "{err}");

    let missing = dir.path().join("no-such-alert").display().to_string();
    let err = run(alert(vec![missing], Duration::from_secs(10)), &console_env)
        .await
        .unwrap_err();
    assert!(matches!(err, AlertError::Spawn { .. }), "{err:?}");
    assert!(err.to_string().contains("does not exist"), "{err}");
    assert!(
        !err.to_string().contains("PATH"),
        "a path given is not looked up: {err}"
    );
}

#[tokio::test]
async fn a_prompt_too_big_for_one_variable_is_on_stdin_and_in_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("seen.out");
    let program = script(
        dir.path(),
        "alert.sh",
        "{ cat | wc -c; wc -c < \"$DOCDECK_PROMPT_FILE\"; echo \"var=${DOCDECK_PROMPT:-unset}\"; } > \"$1\"",
    );
    let mut big = alert(
        vec![program, out.display().to_string()],
        Duration::from_secs(10),
    );
    let prompt = "word ".repeat(60 * 1024);
    big.prompt = Some(prompt.clone());
    run(big, &console_env).await.unwrap();
    let seen = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = seen.lines().map(str::trim).collect();
    let size = prompt.len().to_string();
    assert_eq!(lines, [size.as_str(), size.as_str(), "var=unset"], "{seen}");
}
