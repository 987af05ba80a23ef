//! Agents a killed service left running. `docdeck serve` runs each agent under `docdeck
//! agent-exec`, which the kernel signals when the service dies (Linux), and which then
//! kills the agent's group; this is the fallback for what that cannot cover (another
//! system, a launcher that was itself killed). Each turn's process group is noted in a
//! file under the work folder (`running/`) with its leader's start time, and the file is
//! removed when the turn ends. A service stopped by `kill -9` cannot remove it: at the next
//! start every group still noted is killed, and waited for, before any turn runs, so no
//! orphan keeps writing in a worktree a follow-up works in. The notes are files, not rows
//! of the database: processes belong to this machine, a database may be shared by several.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Where the groups of running turns are noted.
#[must_use]
pub fn records_dir(work_dir: &Path) -> PathBuf {
    work_dir.join("running")
}

/// Notes that the turn's group `pgid` runs, in `record`.
pub fn note(record: &Path, pgid: u32) {
    let Some(started) = start_time(pgid) else {
        return;
    };
    let written = record
        .parent()
        .map_or(Ok(()), crate::sqlite::create_private_dir)
        .and_then(|()| std::fs::write(record, format!("{pgid} {started}\n")));
    if let Err(err) = written {
        tracing::warn!(record = %record.display(), "cannot note the agent's process group: {err}");
    }
}

/// Forgets a turn's group: it ended, and was killed with everything it started.
pub fn forget(record: &Path) {
    let _ = std::fs::remove_file(record);
}

/// Kills every group noted in `work_dir` that still runs, waits until each is gone (up to
/// a few seconds), and forgets them all. Returns how many were killed.
pub fn reap(work_dir: &Path) -> usize {
    end_noted(
        work_dir,
        "an agent left running by a service that was killed: stopping it before any turn runs",
    )
}

/// At a clean stop, once the turns' tasks are gone (their launchers killed with them):
/// kills what their groups still run, so no agent outlives the service that started it.
/// Returns how many groups were stopped.
pub fn stop_all(work_dir: &Path) -> usize {
    end_noted(
        work_dir,
        "the service is stopping: its agent and every process of its group are stopped",
    )
}

fn end_noted(work_dir: &Path, why: &str) -> usize {
    let Ok(entries) = std::fs::read_dir(records_dir(work_dir)) else {
        return 0;
    };
    let mut killed = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        let noted = std::fs::read_to_string(&path).ok().and_then(|text| {
            let mut words = text.split_whitespace();
            Some((words.next()?.parse::<u32>().ok()?, words.next()?.to_owned()))
        });
        if let Some((pgid, started)) = noted
            && still_ours(pgid, &started)
        {
            tracing::warn!(
                pgid,
                turn = %path.file_name().unwrap_or_default().to_string_lossy(),
                "{why}"
            );
            kill_and_wait(pgid);
            killed += 1;
        }
        forget(&path);
    }
    killed
}

/// Whether group `pgid` still has members that are the noted turn's: its leader with the
/// noted start time, or, with the leader gone, any member (the kernel gives no new process
/// an id still used by a group, so members of a group without its leader are the old ones).
fn still_ours(pgid: u32, started: &str) -> bool {
    match start_time(pgid) {
        Some(now) => now == started,
        None => !members(pgid).is_empty(),
    }
}

fn kill_and_wait(pgid: u32) {
    #[cfg(unix)]
    if let Some(pid) = i32::try_from(pgid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    while !members(pgid).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The fields of `/proc/PID/stat` after the command's name (state first).
fn stat_fields(pid: &str) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = stat.rsplit_once(')')?.1;
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// When process `pid` started (clock ticks since boot), unless it is gone or a zombie.
fn start_time(pid: u32) -> Option<String> {
    let fields = stat_fields(&pid.to_string())?;
    if fields.first().is_some_and(|state| state == "Z") {
        return None;
    }
    fields.get(19).cloned()
}

/// Live processes of group `pgid`.
fn members(pgid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let group = pgid.to_string();
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            stat_fields(&pid.to_string()).is_some_and(|fields| {
                fields.first().is_some_and(|state| state != "Z") && fields.get(2) == Some(&group)
            })
        })
        .collect()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_group_left_running_is_killed_with_its_children_and_forgotten() {
        let work = tempfile::tempdir().unwrap();
        let mut command = std::process::Command::new("/bin/sh");
        command
            .args(["-c", "sleep 30 & sleep 30"])
            .stdin(std::process::Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut leader = command.spawn().unwrap();
        let pgid = leader.id();
        let record = records_dir(work.path()).join("job_x-turn-1");
        note(&record, pgid);
        assert!(record.exists());
        let deadline = Instant::now() + Duration::from_secs(10);
        while members(pgid).len() < 2 {
            assert!(Instant::now() < deadline, "the group never had its child");
            std::thread::sleep(Duration::from_millis(10));
        }
        // As a start after kill -9 of the service finds it.
        assert_eq!(reap(work.path()), 1);
        let _ = leader.wait();
        assert!(members(pgid).is_empty(), "{:?}", members(pgid));
        assert!(!record.exists());
        assert_eq!(reap(work.path()), 0, "nothing left to reap");
    }

    #[test]
    fn a_group_whose_leader_is_another_process_now_is_left_alone() {
        let work = tempfile::tempdir().unwrap();
        let record = records_dir(work.path()).join("job_y-turn-1");
        std::fs::create_dir_all(record.parent().unwrap()).unwrap();
        // This test's own process, noted with a start time it never had.
        std::fs::write(&record, format!("{} 1\n", std::process::id())).unwrap();
        assert_eq!(reap(work.path()), 0);
        assert!(!record.exists());
    }
}
